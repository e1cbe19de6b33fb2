# mk/doc_programs.mk — the examples of README.md and docs/ built as programs, so that
# tests/examples/doc_programs.sh runs what a user would copy: scripts/doc_programs.py writes them,
# and each is linked with the -l flags it wrote beside it (for the README's, those of the README's
# own command line).  Each program's expected output (<name>.expect) goes beside it in the examples
# directory, so that a carried tree (make gpu-bundle) holds both.  The F77 ones only where FC can make the F77 layer's external names (as the
# other F77 examples).
DOC_SRC := $(BUILD)/doc-programs
DOC_STAMP := $(DOC_SRC)/.written
DOC_MODERN := readme_modern doc_modern_fortran doc_fft
DOC_PROGRAMS := $(addprefix $(EXBIN)/,$(DOC_MODERN) doc_c_abi)
ifneq ($(FORTRAN_EXAMPLES),)
DOC_PROGRAMS += $(EXBIN)/readme_thunking $(EXBIN)/readme_device $(EXBIN)/readme_dropin
endif
DOC_LIBS = $$(cat $(DOC_SRC)/$*.libs)

$(DOC_STAMP): README.md $(wildcard docs/*.md) scripts/doc_programs.py
	$(PYTHON) scripts/doc_programs.py $(DOC_SRC)
	@touch $@

$(EXBIN)/readme_thunking $(EXBIN)/readme_device: $(EXBIN)/%: $(DOC_STAMP) \
        $(LIB)/libcufort_f77.so $(LIB)/libcufort_f77_thunking.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $(DOC_SRC)/$*.f -L$(LIB) $(DOC_LIBS) $(RPATH_BIN)

$(EXBIN)/readme_dropin: $(EXBIN)/%: $(DOC_STAMP) $(DROPIN_LIB) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $(DOC_SRC)/$*.f90 -L$(LIB) $(DOC_LIBS) $(RPATH_BIN)

$(addprefix $(EXBIN)/,$(DOC_MODERN)): $(EXBIN)/%: $(DOC_STAMP) $(FORTRAN_LIBS) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OBJ)/examples/mod/$*
	$(FC) $(FFLAGS) $(FC_STD) $(FC_WARN) -J$(OBJ)/examples/mod/$* -o $@ $(DOC_SRC)/$*.f90 \
	    -I$(MODDIR) -L$(LIB) $(DOC_LIBS) $(RPATH_BIN)

$(EXBIN)/doc_c_abi: $(EXBIN)/%: $(DOC_STAMP) $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -Ic_wrappers/include -o $@ $(DOC_SRC)/$*.c -L$(LIB) $(DOC_LIBS) $(RPATH_BIN)

DOC_EXPECTS := $(addsuffix .expect,$(DOC_PROGRAMS))
$(DOC_EXPECTS): $(EXBIN)/%.expect: $(DOC_STAMP)
	@mkdir -p $(@D)
	cp $(DOC_SRC)/$*.expect $@

EXAMPLE_BINS += $(DOC_PROGRAMS)
examples: $(DOC_PROGRAMS) $(DOC_EXPECTS)
