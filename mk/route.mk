# mk/route.mk — the routing core shared by the drop-in libraries (c_wrappers/route), included by
# mk/dropin.mk.  Its objects are compiled once and linked into libcufort_blas and libcufort_fftw,
# each of which defines the profile and counters' table they refer to (c_wrappers/route/route.h).

ROUTE_SRCS := $(sort $(wildcard c_wrappers/route/*.c))
ROUTE_OBJS := $(call obj_of,$(ROUTE_SRCS))
$(ROUTE_OBJS): CPPFLAGS += -Ic_wrappers/route

# The launcher's variables (which rank, how many on the node), a hidden copy for the report, with
# the environment reader it uses: a drop-in opens libcufort only when a call needs the GPU
# (c_wrappers/route/core_link.c), and a rank's report must not open it just to say which rank it is.
ROUTE_CORE_COPIES := $(OBJ)/route/launcher.o $(OBJ)/route/env.o
$(ROUTE_CORE_COPIES): $(OBJ)/route/%.o: c_wrappers/core/%.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@
-include $(ROUTE_CORE_COPIES:.o=.d)
ROUTE_OBJS += $(ROUTE_CORE_COPIES)
