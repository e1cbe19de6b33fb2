# mk/dropin.mk -- placeholder for the drop-in BLAS library (issue 6)
