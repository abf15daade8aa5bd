/* A stand-in for ruleforge/native/c/rf_runtime.h (tests/test_native_build.py): the runtime a
   source includes first. Each source defines rf_answer; rf_module.c exports it. */
#ifndef RF_RUNTIME_H
#define RF_RUNTIME_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static int64_t rf_answer(int64_t x);

#endif
