# mk/readme.mk — the README's Fortran examples built as programs, so that tests/examples/readme.sh
# runs what a user would copy: scripts/readme_programs.py writes them from README.md, and each is
# linked with the -l flags of the README's own command line under it.  The F77 ones only where FC
# can make the F77 layer's external names (as the other F77 examples).
README_SRC := $(BUILD)/readme
README_STAMP := $(README_SRC)/.written
README_EXAMPLES := $(EXBIN)/readme_modern
ifneq ($(FORTRAN_EXAMPLES),)
README_EXAMPLES += $(EXBIN)/readme_thunking $(EXBIN)/readme_device $(EXBIN)/readme_dropin
endif
README_LIBS = $$(cat $(README_SRC)/$*.libs)

$(README_STAMP): README.md scripts/readme_programs.py
	$(PYTHON) scripts/readme_programs.py $(README_SRC)
	@touch $@

$(EXBIN)/readme_thunking $(EXBIN)/readme_device: $(EXBIN)/readme_%: $(README_STAMP) \
        $(LIB)/libcufort_f77.so $(LIB)/libcufort_f77_thunking.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $(README_SRC)/$*.f -L$(LIB) $(README_LIBS) $(RPATH_BIN)

$(EXBIN)/readme_dropin: $(EXBIN)/readme_%: $(README_STAMP) $(DROPIN_LIB) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $(README_SRC)/$*.f90 -L$(LIB) $(README_LIBS) $(RPATH_BIN)

$(EXBIN)/readme_modern: $(EXBIN)/readme_%: $(README_STAMP) $(FORTRAN_LIBS) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OBJ)/examples/mod/readme
	$(FC) $(FFLAGS) $(FC_STD) $(FC_WARN) -J$(OBJ)/examples/mod/readme -o $@ $(README_SRC)/$*.f90 \
	    -I$(MODDIR) -L$(LIB) $(README_LIBS) $(RPATH_BIN)

EXAMPLE_BINS += $(README_EXAMPLES)
examples: $(README_EXAMPLES)
