# Makefile - builds, runs, tests and plots the course. `make help` says what each target does.
#
# Variables a CUDA user expects, all overridable on the command line (make SMS=90 V=1):
#   CUDA_PATH  the toolkit         (default: the one whose nvcc is on PATH, else /usr/local/cuda)
#   NVCC, CC   the compilers       (default: $(CUDA_PATH)/bin/nvcc and cc)
#   SMS        GPU architectures   (default: this machine's GPU; without one, sm_75 and up + PTX)
#   V=1        echo every command
#   STRICT=1   warnings are errors (CI, make test and make sanitize set it)
#   ARGS       extra flags for `make run-<lesson>`, e.g. ARGS="--size 1G"
#   EXERCISE   `make run-<lesson> EXERCISE=N` runs exercise N of the lesson's README
#   DEVICE     which GPU: `make run-<lesson> DEVICE=1`, `make run-all DEVICE=1` (default 0)
#   FULL=1     `make run-all FULL=1`: every lesson's deep layer (--deep all) and exercises too
#   LAB=1      the lab preset for a class sharing GPUs (scripts/lab.args): smaller runs of every
#              lesson and, with `make run-all LAB=1`, every task; `make run-NN` and `make task-NN`

LESSONS := 01_sync_copy 02_streams 03_events 04_pinned_memory 05_raii_style_c \
           06_overlap_pipeline

BUILD := build
BIN   := $(BUILD)/bin
OBJ   := $(BUILD)/obj

# ---------------------------------------------------------------------------- toolchain

NVCC_ON_PATH := $(shell command -v nvcc 2>/dev/null)
CUDA_PATH ?= $(if $(NVCC_ON_PATH),$(patsubst %/bin/nvcc,%,$(NVCC_ON_PATH)),/usr/local/cuda)
NVCC      ?= $(CUDA_PATH)/bin/nvcc

# Build for the GPU in this machine when there is one (fast to build, and exactly right); else for
# every architecture from Turing (sm_75, the oldest CUDA 13 supports) that this nvcc knows, plus
# PTX of the newest, which the driver compiles for GPUs newer than the toolkit.
ifeq ($(origin SMS),undefined)
  GPU_SMS  := $(sort $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '.'))
  NVCC_SMS := $(patsubst sm_%,%,$(shell $(NVCC) --list-gpu-code 2>/dev/null))
  KNOWN_SMS := $(if $(NVCC_SMS),$(filter 75 80 86 89 90 100 120,$(NVCC_SMS)),75 80 86 89 90)
  SMS := $(if $(and $(GPU_SMS),$(NVCC_SMS)),$(if $(filter-out $(NVCC_SMS),$(GPU_SMS)),$(KNOWN_SMS),$(GPU_SMS)),$(KNOWN_SMS))
endif
PTX_SM  := $(lastword $(SMS))
GENCODE := $(foreach sm,$(SMS),-gencode arch=compute_$(sm),code=sm_$(sm)) \
           -gencode arch=compute_$(PTX_SM),code=compute_$(PTX_SM)

CFLAGS    ?= -O2 -g
NVCCFLAGS ?= -O2 -lineinfo
# Host code is ISO C11 (CONTRIBUTING.md). POSIX 2008 for clock_gettime. Warnings are errors only
# when asked, STRICT=1, as CI, make test and make sanitize ask: a student's newer compiler that
# warns of something new still builds the lessons.
# One file is GNU C, because it teaches a GNU extension: __attribute__((cleanup)).
C_STD      = -std=c11
$(OBJ)/05_raii_style_c/demo_scoped.c.o: C_STD = -std=gnu11
# The toolkit's headers; `make check-cuda12` points these at CUDA 12's instead.
CUDA_INCLUDES ?= -isystem $(CUDA_PATH)/include
test sanitize test-small-gpu check-cuda12: STRICT = 1
WERROR       = $(if $(filter 1,$(STRICT)),-Werror)
NVCC_WERROR  = $(if $(filter 1,$(STRICT)),-Werror=all-warnings)
ALL_CFLAGS  = $(C_STD) -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic $(WERROR) \
              -Icommon $(CUDA_INCLUDES) $(EXTRA_CFLAGS) $(CFLAGS)
ALL_NVCCFLAGS = -std=c++17 $(GENCODE) -Icommon -Xcompiler=-Wall,-Wextra $(NVCC_WERROR) \
                $(NVCCFLAGS)
# nvcc links the CUDA runtime statically by default: the programs run without LD_LIBRARY_PATH.
# common/watch.c watches from a thread of its own and loads NVML at run time.
LDLIBS := -lpthread -ldl

# CUPTI (lesson 06's timeline) sits in different folders across toolkit installs. The rpath lets
# the program find it at run time without LD_LIBRARY_PATH. Without CUPTI, 06 builds and runs, and
# says that it records no timeline.
CUPTI_LIB := $(firstword $(foreach d,lib64 lib targets/x86_64-linux/lib targets/sbsa-linux/lib \
               extras/CUPTI/lib64,$(if $(wildcard $(CUDA_PATH)/$(d)/libcupti.so),$(CUDA_PATH)/$(d))))
CUPTI_INC := $(firstword $(foreach d,include extras/CUPTI/include,$(if \
               $(wildcard $(CUDA_PATH)/$(d)/cupti.h),$(CUDA_PATH)/$(d))))
ifneq ($(and $(CUPTI_LIB),$(CUPTI_INC)),)
$(OBJ)/06_overlap_pipeline/timeline.c.o: EXTRA_CFLAGS = -DHAVE_CUPTI=1 -isystem $(CUPTI_INC)
$(BIN)/06_overlap_pipeline $(BIN)/task-06: LDLIBS += -L$(CUPTI_LIB) -lcupti -Xlinker -rpath \
                                                    -Xlinker $(CUPTI_LIB)
else
$(OBJ)/06_overlap_pipeline/timeline.c.o: EXTRA_CFLAGS = -DHAVE_CUPTI=0
endif

ifeq ($(V),1)
  Q :=
  say :=
else
  Q := @
  say = @printf '  %-6s %s\n' $(1) $(2);
endif

# ------------------------------------------------------------------------------- build

HOST_OBJS := $(patsubst %,$(OBJ)/%.o,$(wildcard common/*.c $(addsuffix /*.c,$(LESSONS))))
COMMON_OBJS := $(OBJ)/common/common.c.o $(OBJ)/common/gpu.c.o $(OBJ)/common/fault.c.o \
               $(OBJ)/common/watch.c.o $(OBJ)/common/exercise.c.o $(OBJ)/common/kernels.cu.o
# A lesson's own files; its task (task.c, the student's, and task_check.c, which checks it) builds
# apart, by make task-NN.
lesson_objs  = $(patsubst %,$(OBJ)/%.o,$(filter-out $(1)/task.c $(1)/task_check.c,\
                 $(wildcard $(1)/*.c $(1)/*.cu)))
PROGRAMS    := $(addprefix $(BIN)/,$(LESSONS))

.PHONY: all help run-all plots test test-small-gpu check-cuda12 host-objects sanitize clean $(LESSONS) \
        $(addprefix run-,$(LESSONS)) $(LESSON_NUMBERS) $(addprefix run-,$(LESSON_NUMBERS))
.DEFAULT_GOAL := all

all: $(PROGRAMS)

$(LESSONS): %: $(BIN)/%

# A program without a GPU says so in one sentence and exits 77: nothing failed.
# LAB=1 puts the program's line of scripts/lab.args before ARGS.
lab_flags = $(if $(filter 1,$(LAB)),$(shell sed -n 's/^$(1) //p' scripts/lab.args))
RUN_FLAGS = $(if $(DEVICE),--device $(DEVICE)) $(if $(EXERCISE),--exercise $(EXERCISE)) \
            $(call lab_flags,$*) $(ARGS)
$(addprefix run-,$(LESSONS)): run-%: $(BIN)/%
	@echo ./$(BIN)/$* $(strip $(RUN_FLAGS))
	@./$(BIN)/$* $(RUN_FLAGS); status=$$?; \
		[ $$status -eq 77 ] || exit $$status

# A lesson by its number too: `make 04`, `make run-04 ARGS=...`. Anything else named run-... is no
# lesson: say so, and where the list is.
define lesson_alias
$(firstword $(subst _, ,$(1))): $(1) ;
run-$(firstword $(subst _, ,$(1))): run-$(1) ;
endef
$(foreach lesson,$(LESSONS),$(eval $(call lesson_alias,$(lesson))))
LESSON_NUMBERS := $(foreach lesson,$(LESSONS),$(firstword $(subst _, ,$(lesson))))
run-%:
	@echo "make: there is no lesson '$*': the lessons are $(LESSONS) (or their numbers, make run-01); see make help" >&2; exit 2

define program_rule
$(BIN)/$(1): $(call lesson_objs,$(1)) $(COMMON_OBJS)
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)$(NVCC) $(GENCODE) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach lesson,$(LESSONS),$(eval $(call program_rule,$(lesson))))

# ------------------------------------------------------------------------------ tasks

# make task-NN: lesson NN built with the student's NN_name/task.c in place of the lesson's own
# function, run on the GPU against that function, in turns: PASS or FAIL, and why. task_check.c
# holds the lesson (it includes main.c) and the check. TASK=path checks another file instead
# (the tests' typical wrong answers); make tasks builds every task with its blank task.c.
TASK_LESSONS := $(patsubst %/task_check.c,%,$(wildcard $(addsuffix /task_check.c,$(LESSONS))))
TASK_NUMBERS := $(foreach lesson,$(TASK_LESSONS),$(firstword $(subst _, ,$(lesson))))
TASK_PROGRAMS := $(addprefix $(BIN)/task-,$(TASK_NUMBERS))
.PHONY: tasks $(addprefix task-,$(TASK_NUMBERS))
tasks: $(TASK_PROGRAMS)

define task_rule
$(BIN)/task-$(2): $(OBJ)/$(1)/task_check.c.o $$(OBJ)/$$(or $$(TASK),$(1)/task.c).o \
                  $(filter-out $(OBJ)/$(1)/main.c.o,$(call lesson_objs,$(1))) $(COMMON_OBJS) FORCE
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)$(NVCC) $(GENCODE) -o $$@ $$(filter-out FORCE,$$^) $$(LDLIBS)
task-$(2): $(BIN)/task-$(2)
	@echo ./$$< $$(strip $$(if $$(DEVICE),--device $$(DEVICE)) $$(call lab_flags,task-$(2)) $$(ARGS))
	@./$$< $$(if $$(DEVICE),--device $$(DEVICE)) $$(call lab_flags,task-$(2)) $$(ARGS); status=$$$$?; \
		[ $$$$status -eq 77 ] || exit $$$$status
endef
$(foreach lesson,$(TASK_LESSONS),$(eval $(call task_rule,$(lesson),$(firstword $(subst _, ,$(lesson))))))

# Objects depend on the flags they were built with: a different SMS or CUDA_PATH rebuilds them.
FLAGS_STAMP := $(OBJ)/flags.stamp
# (-Werror changes no object: switching STRICT rebuilds nothing.)
FLAGS_NOW   := $(CC) $(filter-out -Werror%,$(ALL_CFLAGS)) | $(NVCC) \
               $(filter-out -Werror%,$(ALL_NVCCFLAGS))
$(FLAGS_STAMP): FORCE
	@command -v $(NVCC) >/dev/null || { echo "make: no CUDA toolkit: no nvcc at $(NVCC);" \
	  "install the CUDA Toolkit, or name its folder: make CUDA_PATH=/usr/local/cuda" \
	  >&2; exit 2; }
	@mkdir -p $(@D)
	@echo '$(FLAGS_NOW)' | cmp -s - $@ || echo '$(FLAGS_NOW)' > $@
.PHONY: FORCE

$(OBJ)/%.c.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call say,NVCC,$<)$(NVCC) $(ALL_NVCCFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# ------------------------------------------------------------------- run, plot, test

# The scripts run through bash, so that a copy whose files lost their execute bits (some unzip
# tools drop them) runs them all the same.

# Runs every lesson with its defaults into results/<gpu>/, one summary line each, then the plots;
# FULL=1 runs each lesson's deep layer and exercises too (what results/reference/ is made of).
# Without a GPU, run_all.sh draws the shipped reference instead and exits 77: nothing failed.
# LAB=1 runs the lab preset of every lesson and then every task into results/lab/<gpu>/, no plots.
run-all: all $(if $(filter 1,$(LAB)),$(TASK_PROGRAMS))
	$(Q)MAKE="$(MAKE)" FULL="$(FULL)" LAB="$(LAB)" DEVICE="$(DEVICE)" bash scripts/run_all.sh $(LESSONS); status=$$?; [ $$status -eq 77 ] || exit $$status

# Draws whatever results exist (yours under results/<gpu>/, and the shipped reference).
# `make plots LANG=zh` writes the figures in Chinese into plots/out/zh/; only LANG given on the
# command line counts, not the locale's.
PLOTS_LANG := $(if $(filter command line,$(origin LANG)),$(LANG),en)
plots:
	$(Q)PLOTS_LANG=$(PLOTS_LANG) bash scripts/plots.sh

# Host-only unit tests of common/, built with AddressSanitizer and UBSan.
TEST_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -g -O1 \
               -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
               -Icommon -isystem $(CUDA_PATH)/include
TEST_SOURCES := tests/test_common.c common/common.c common/watch.c common/exercise.c \
                06_overlap_pipeline/copies.c
TEST_HEADERS := common/common.h 06_overlap_pipeline/pipeline.h 06_overlap_pipeline/copies.h
$(BUILD)/tests/test_common: $(TEST_SOURCES) $(TEST_HEADERS)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(TEST_CFLAGS) -o $@ $(TEST_SOURCES) -lm -lpthread -ldl

# The same tests without the sanitizers, for valgrind, which cannot run sanitized programs.
$(BUILD)/tests/test_common_plain: $(TEST_SOURCES) $(TEST_HEADERS)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(filter-out -fsanitize% -fno-sanitize%,$(TEST_CFLAGS)) -o $@ \
		$(TEST_SOURCES) -lm -lpthread -ldl

# The suite in tests/ (pytest): every check, host-only and, where a GPU is, on the GPU.
# matplotlib is fetched here, before the tests start, where it can be: a test would hide the wait.
test: $(PROGRAMS) $(TASK_PROGRAMS) $(BUILD)/tests/test_common $(BUILD)/tests/test_common_plain \
      $(BUILD)/tests/hold_gpu_memory
	$(Q)python=$$(bash scripts/python.sh pytest matplotlib || bash scripts/python.sh pytest) && \
		LESSONS="$(LESSONS)" $$python -m pytest -q -rfEs \
		-p no:cacheprovider tests

# Every lesson and every test on a GPU with only SMALL_GPU_FREE of its memory free: a helper
# process holds the rest, as another program would on a shared or a small GPU.
SMALL_GPU_FREE ?= 2G
test-small-gpu: $(PROGRAMS) $(BUILD)/tests/hold_gpu_memory
	$(Q)MAKE="$(MAKE)" bash scripts/small_gpu.sh $(SMALL_GPU_FREE)

$(BUILD)/tests/hold_gpu_memory: $(OBJ)/tests/hold_gpu_memory.c.o $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

# Every host file compiled, not linked: what check-cuda12 needs.
host-objects: $(HOST_OBJS)

# The host code, CUPTI timeline and managed-memory code included, compiled against CUDA 12.9's
# headers as well (the installed toolkit is 13.x): both branches of every version test compile.
check-cuda12:
	$(Q)MAKE="$(MAKE)" bash scripts/check_cuda12.sh

sanitize: $(PROGRAMS)
	$(Q)bash scripts/sanitize.sh $(LESSONS)

clean:
	rm -rf $(BUILD)

help:
	@echo 'make               build every lesson into $(BIN)/'
	@echo 'make <lesson>      build one lesson, e.g. make 01_sync_copy (or make 01)'
	@echo 'make run-<lesson>  build and run one lesson (make run-01 too); flags go in ARGS="--size 1G"'
	@echo '                   (EXERCISE=N: run exercise N of its README instead)'
	@echo 'make task-<NN>     your task: the lesson with your NN_name/task.c, checked on the GPU'
	@echo '                   (TASK=path: check another file; make tasks builds every task)'
	@echo 'make run-all       run every lesson into results/<gpu>/ (CSV + log), then the plots'
	@echo '                   (FULL=1: every deep layer and exercise too; DEVICE=N: on GPU N;'
	@echo '                   LAB=1: smaller runs and every task, for a class sharing GPUs)'
	@echo 'make plots         draw results/<gpu>/ and results/reference/ into plots/out/'
	@echo '                   (LANG=zh: in Chinese, into plots/out/zh/; needs a Chinese font)'
	@echo 'make test          all tests; GPU parts are skipped (and counted) without a GPU'
	@echo 'make sanitize      every lesson under compute-sanitizer (needs a GPU)'
	@echo 'make test-small-gpu  run-all and test with only $(SMALL_GPU_FREE) of GPU memory free'
	@echo '                   (SMALL_GPU_FREE=1G for less)'
	@echo 'make check-cuda12  compile the host code against CUDA 12.9 headers too (from PyPI)'
	@echo 'make clean         remove $(BUILD)/'
	@echo 'lessons: $(LESSONS)'
	@echo 'building for SMS=$(SMS) with $(NVCC)'
