# mk/route.mk — the routing core shared by the drop-in libraries (c_wrappers/route), included by
# mk/dropin.mk.  Its objects are compiled once and linked into libcufort_blas and libcufort_fftw,
# each of which defines the profile and counters' table they refer to (c_wrappers/route/route.h).

ROUTE_SRCS := $(sort $(wildcard c_wrappers/route/*.c))
ROUTE_OBJS := $(call obj_of,$(ROUTE_SRCS))
$(ROUTE_OBJS): CPPFLAGS += -Ic_wrappers/route
