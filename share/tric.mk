# tric.mk: Make rules for Triton kernels compiled ahead of time to C.
#
#   include $(shell pkg-config --variable=mkdir tric)/tric.mk
#   app: main.o add.tric.o
#   	$(CC) -o $@ $^ $(TRIC_LDLIBS)
#   main.o: add.tric.h
#
# add.tric.c and add.tric.h come from add.py: `tric add.py --emit c`, with
# the kernels and signatures that the file's "# kernel:" and "# signature:"
# lines name (several signatures of a kernel: one launcher that picks among
# them at run time), or those TRIC_FLAGS_add gives:
#   TRIC_FLAGS_add = -k add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, 1024'
# The C needs only libcuda.so.1 at run time (opened with dlopen).
TRIC        ?= tric
TRIC_ARCHS  ?= sm_80 sm_90a
TRIC_FLAGS  ?=
TRIC_LDLIBS ?= -ldl -lpthread

%.tric.c %.tric.h: %.py
	$(TRIC) $< --emit c $(foreach a,$(TRIC_ARCHS),--arch $(a)) $(TRIC_FLAGS) $(TRIC_FLAGS_$(notdir $*)) -o $*.tric
