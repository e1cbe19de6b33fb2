# mk/mpi.mk — ScaLAPACK under mpirun on the CPU BLAS, the drop-in and the drop-in with MPS
# (bench/mpi_run.sh), included by the Makefile.
#
#   make bench-mpi-collect   build $(BUILD)/mpi/scalapack_bench and copy into $(BUILD)/mpi what a
#                            machine with only Open MPI lacks (ScaLAPACK, OpenBLAS, the Fortran
#                            runtime, Debian's ScaLAPACK testers)
#   make bench-mpi           the benchmark: $(BUILD)/mpi-out/mpi.csv, or $$OUT/mpi.csv
#   make bench-mpi-testers   the testers on the CPU BLAS and the drop-in: testers.csv beside it
# bench/plot_mpi.py turns the CSVs into tables.  No prerequisites: the GPU machine runs what was
# built and collected here, without a toolchain.

.PHONY: bench-mpi bench-mpi-collect bench-mpi-testers
bench-mpi-collect:
	bash bench/mpi_run.sh --collect $(BUILD)
bench-mpi:
	bash bench/mpi_run.sh $(BUILD)
bench-mpi-testers:
	bash bench/mpi_run.sh --testers $(BUILD)
