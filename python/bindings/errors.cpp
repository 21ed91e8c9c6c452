// Maps pypto::Error to Python exceptions. Every class derives from
// pypto.Error; user errors also derive from the matching builtin
// (ValueError, TypeError, IndexError, OSError) so `except ValueError` works.
// The exception carries the source span as attributes (filename, lineno,
// col_offset, end_lineno, end_col_offset) and the bare message as `message`.
#include "casters.h"
#include "pypto/support/error.h"

namespace pypto::python {

namespace {

struct ExceptionClasses {
  py::object base;
  std::map<ErrorKind, py::object> by_kind;
};

ExceptionClasses& Classes() {
  static ExceptionClasses* classes = new ExceptionClasses();  // lives as long as the interpreter
  return *classes;
}

py::object MakeClass(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  std::string qualified = std::string("pypto.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (cls == nullptr) throw py::error_already_set();
  py::object obj = py::reinterpret_steal<py::object>(cls);
  m.attr(name) = obj;
  return obj;
}

void Raise(const Error& e) {
  auto& classes = Classes();
  auto it = classes.by_kind.find(e.kind());
  py::object cls = it == classes.by_kind.end() ? classes.base : it->second;
  py::object instance = cls(py::str(e.what()));
  instance.attr("message") = py::str(e.message());
  instance.attr("kind") = py::str(ErrorKindName(e.kind()));
  const Span& s = e.span();
  // OSError has its own `filename` (None by default); setting it, even to
  // None, makes str() print "[Errno None] None: None" instead of the message.
  bool os_error = PyObject_IsSubclass(cls.ptr(), PyExc_OSError) == 1;
  if (!s.filename.empty()) {
    instance.attr("filename") = py::str(s.filename);
  } else if (!os_error) {
    instance.attr("filename") = py::none();
  }
  instance.attr("lineno") = s.known() ? py::object(py::int_(s.begin_line)) : py::none();
  instance.attr("col_offset") = s.known() ? py::object(py::int_(s.begin_col)) : py::none();
  instance.attr("end_lineno") = s.end_line > 0 ? py::object(py::int_(s.end_line)) : py::none();
  instance.attr("end_col_offset") = s.end_line > 0 ? py::object(py::int_(s.end_col)) : py::none();
  PyErr_SetObject(cls.ptr(), instance.ptr());
}

}  // namespace

void BindErrors(py::module_& m) {
  auto& classes = Classes();
  py::object builtins = py::module_::import("builtins");
  classes.base = MakeClass(m, "Error", py::make_tuple(builtins.attr("Exception")), "Base class of PyPTO errors.");
  auto derived = [&](ErrorKind kind, const char* name, const char* builtin, const char* doc) {
    py::tuple bases = builtin ? py::tuple(py::make_tuple(classes.base, builtins.attr(builtin)))
                              : py::tuple(py::make_tuple(classes.base));
    classes.by_kind[kind] = MakeClass(m, name, bases, doc);
  };
  derived(ErrorKind::kValue, "InvalidValueError", "ValueError", "A value the user passed is not acceptable.");
  derived(ErrorKind::kType, "InvalidTypeError", "TypeError", "A wrong type, arity or keyword.");
  derived(ErrorKind::kIndex, "InvalidIndexError", "IndexError", "An index out of range.");
  derived(ErrorKind::kIO, "FileError", "OSError", "A file could not be read or written.");
  derived(ErrorKind::kVerification, "VerificationError", nullptr, "The IR broke an invariant.");
  derived(ErrorKind::kPlugin, "PluginError", nullptr, "A plugin could not be found or loaded.");
  derived(ErrorKind::kPipeline, "PipelineError", nullptr, "A pipeline file or pass option is wrong.");
  derived(ErrorKind::kCodegen, "CodegenError", nullptr, "A backend cannot generate code for the program.");
  derived(ErrorKind::kInternal, "InternalError", nullptr, "A bug in PyPTO.");
  derived(ErrorKind::kCompile, "CompileError", nullptr, "Generated code failed to compile or link.");
  derived(ErrorKind::kRuntime, "KernelFault", "RuntimeError",
          "A kernel faulted on the device (or simulator), or the program could not run there.");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      Raise(e);
    }
  });
}

}  // namespace pypto::python
