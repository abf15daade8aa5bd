/* A stand-in for ruleforge/native/c/rf_module.c (tests/test_native_build.py): the module's glue,
   included last. The build names the module with -DRF_MODULE=<name>: its init function must be
   PyInit_<name>, so the name is pasted in by the preprocessor. */
#define RF_CAT(a, b) a##b
#define RF_XCAT(a, b) RF_CAT(a, b)
#define RF_STR(a) #a
#define RF_XSTR(a) RF_STR(a)

static PyObject *rf_py_answer(PyObject *self, PyObject *arg) {
    (void)self;
    long long x = PyLong_AsLongLong(arg);
    if (x == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return PyLong_FromLongLong(rf_answer(x));
}

static PyMethodDef rf_methods[] = {
    {"answer", rf_py_answer, METH_O, "The source's answer for a whole number."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef rf_module = {
    PyModuleDef_HEAD_INIT, .m_name = RF_XSTR(RF_MODULE), .m_size = -1, .m_methods = rf_methods,
};

PyMODINIT_FUNC RF_XCAT(PyInit_, RF_MODULE)(void) {
    return PyModule_Create(&rf_module);
}
