"""A kernel as the running program holds it: the units text the compiler
reads (its format is in libtric's frontend/units.c).

Triton compiles a @jit function from its own source and resolves its free
names in the running program; so does tric. For the kernel and every @jit
function it reaches, the text carries the function's source (with its file
and first line, so errors point into the user's file) and what each free
name is bound to here: closure cells first, then the function's globals, as
Python looks them up. Kernels defined inside functions, closures, names
bound under `try:`/`if`, and helper modules such as torch's all resolve as
they do in Triton.
"""
import ast
import inspect
import json
import numbers
import types

from . import language as tl

HEADER = "tric-units 1"


def _is_triton_jit_function(v):
    """A @jit function of Triton's own (a program that imports both)."""
    t = type(v)
    return t.__name__ == "JITFunction" and t.__module__.startswith("triton") and inspect.isfunction(
        getattr(v, "fn", None))


def _is_triton_dtype(v):
    t = type(v)
    return t.__name__ == "dtype" and t.__module__.startswith("triton.language") and str(v) in tl.dtype._INFO


def _is_triton_module(name):
    return name.split(".", 1)[0] in ("tric", "triton")


def _language_paths():
    """id -> dotted path of what tric's own modules export that is not a
    module, a number or a _JitOnly (tric.cdiv, tl.PropagateNan, ...)."""
    import tric
    paths = {}
    for mod, path in ((tric, "triton"), (tl, "triton.language"), (tl.math, "triton.language.math")):
        for name, v in vars(mod).items():
            if not name.startswith("_") and not isinstance(v, (types.ModuleType, numbers.Number, str, tl._JitOnly)):
                paths.setdefault(id(v), path + "." + name)
    return paths


_PATHS = None


def _source(jf):
    """(lines without their common indentation, first line, indentation, file)."""
    fn = jf.fn
    path = inspect.getsourcefile(fn) or fn.__code__.co_filename
    if jf._src_replaced:   # _unsafe_update_src: the def as given, placed at the function's line
        return jf._src, fn.__code__.co_firstlineno, "", path
    if jf._src is None:   # inspect found none when the function was decorated
        raise OSError("tric: cannot find the source of kernel '%s' (defined in %s): tric compiles a kernel from "
                      "its source, which Python's inspect must be able to find" % (fn.__name__,
                                                                                fn.__code__.co_filename))
    lines, first = jf._src.splitlines(keepends=True), jf._src_line
    head = lines[0]
    indent = head[:len(head) - len(head.lstrip(" \t"))]
    out = []
    for line in lines:
        if line.startswith(indent):
            out.append(line[len(indent):])
        else:   # a less indented continuation line or string line: what indentation it has goes
            out.append(line.lstrip(" \t") if line.strip() else "\n")
    return "".join(out), max(first, 1), indent, path


class _Names(ast.NodeVisitor):
    """The names a def reads and the attribute names it uses (its
    decorators left out: they run on the host)."""

    def __init__(self):
        self.names = []
        self.attrs = set()

    def visit_FunctionDef(self, node):
        self.visit(node.args)
        for stmt in node.body:
            self.visit(stmt)

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Store) and node.id not in self.names:
            self.names.append(node.id)

    def visit_Attribute(self, node):
        self.attrs.add(node.attr)
        self.generic_visit(node)


def _describe(v):
    if isinstance(v, types.ModuleType):
        return "the module '%s'" % v.__name__
    if inspect.isfunction(v) or inspect.isbuiltin(v):
        return "the Python function '%s' (not a @jit function)" % getattr(v, "__qualname__", v.__name__)
    if isinstance(v, type):
        return "the class '%s'" % v.__qualname__
    return "a value of type %s" % type(v).__qualname__


class Units:
    """The units text of one kernel, built once per JITFunction."""

    def __init__(self):
        self.units = []      # [header line, source or None, {name: bind line}]
        self.index = {}      # id(JITFunction or module) -> unit number
        self.keep = []       # what index's ids belong to, alive while we build
        self.used_globals = []   # (name, globals dict, value): what changing means recompiling
        self.foreign = {}        # id(Triton's JITFunction) -> tric's over the same function

    def jit_function_of(self, v):
        """The JITFunction v is or wraps (an autotuner, heuristics, or another
        KernelInterface that names it in .jit_function; Triton's own @jit
        functions are compiled from their function), else None."""
        from .jit import JITFunction, KernelInterface
        for _ in range(8):
            if isinstance(v, JITFunction):
                return v
            if _is_triton_jit_function(v):
                if id(v) not in self.foreign:
                    self.keep.append(v)
                    self.foreign[id(v)] = JITFunction(v.fn)
                return self.foreign[id(v)]
            if not isinstance(v, KernelInterface):
                return None
            v = getattr(v, "jit_function", None) or getattr(v, "fn", None)
        return None

    def function(self, jf):
        if id(jf) in self.index:
            return self.index[id(jf)]
        text, first, indent, path = _source(jf)
        if not text.endswith("\n"):
            text += "\n"
        n = len(self.units)
        self.index[id(jf)] = n
        self.keep.append(jf)
        try:
            defs = [d for d in ast.parse(text).body if isinstance(d, ast.FunctionDef)]
        except SyntaxError:
            defs = []   # the compiler reports it, with its position
        head = "function %s %d %d %s %s" % (defs[0].name if defs else jf.fn.__name__, first,
                                            len(text.encode("utf-8")), json.dumps(indent, ensure_ascii=False),
                                            json.dumps(path, ensure_ascii=False))
        binds = {}
        self.units.append([head, text, binds])
        visitor = _Names()
        for d in defs[:1]:
            visitor.visit(d)
        code = jf.fn.__code__
        local = set(code.co_varnames)
        cells = dict(zip(code.co_freevars, jf.fn.__closure__ or ()))
        g = jf.fn.__globals__
        for name in visitor.names:
            if name in local:
                continue
            if name in cells:
                try:
                    value = cells[name].cell_contents
                except ValueError:   # a cell not filled yet
                    continue
                binds[name] = self.bind(name, value, visitor.attrs)
            elif name in g:
                line = binds[name] = self.bind(name, g[name], visitor.attrs)
                if " value " in line:
                    self.used_globals.append((name, g, g[name]))
            # else: a Python builtin (range, min, ...) or undefined: the compiler's to say
        return n

    def module(self, mod, attrs):
        n = self.index.get(id(mod))
        if n is None:
            n = self.index[id(mod)] = len(self.units)
            self.keep.append(mod)
            self.units.append(["module %s" % json.dumps(mod.__name__, ensure_ascii=False), None, {}])
        binds = self.units[n][2]
        for a in sorted(attrs):
            if a not in binds and a in vars(mod):
                binds[a] = None   # a cycle through this module stops here
                binds[a] = self.bind(a, vars(mod)[a], attrs)
        return n

    def bind(self, name, v, attrs):
        """The bind line of `name` bound to v."""
        global _PATHS
        from .jit import _is_constexpr, _spell_constexpr
        if _is_constexpr(v):   # tric's, or Triton's own (a program that also imports Triton)
            v = v.value
        jf = self.jit_function_of(v)
        if jf is not None:
            return "bind %s function %d" % (name, self.function(jf))
        if isinstance(v, types.ModuleType):
            if _is_triton_module(v.__name__):
                return "bind %s import %s" % (name, v.__name__)
            return "bind %s module %d" % (name, self.module(v, attrs))
        if isinstance(v, tl._JitOnly):
            return "bind %s import %s" % (name, v.path)
        if v is None or isinstance(v, (numbers.Number, str, tuple, tl.dtype)) or _is_triton_dtype(v):
            if _is_triton_dtype(v):
                v = tl.dtype(str(v))   # Triton's dtypes are spelled as tric's: str(tl.float16) == "fp16"
            try:
                text = _spell_constexpr(name, v)
            except (TypeError, ValueError):
                text = None
            if text is not None and "\n" not in text:
                return "bind %s value %s" % (name, text)
        if _PATHS is None:
            _PATHS = _language_paths()
        path = _PATHS.get(id(v))
        module = getattr(v, "__module__", None)
        if not path and isinstance(module, str) and module.startswith("triton.language") and hasattr(v, "__name__"):
            path = module + "." + v.__name__   # a function of Triton's own language module
        if path:
            return "bind %s import %s" % (name, path)
        return "bind %s opaque %s" % (name, json.dumps(_describe(v), ensure_ascii=False))

    def text(self):
        out = [HEADER + "\n"]
        for head, source, binds in self.units:
            out.append(head + "\n")
            if source is not None:
                out.append(source)
            out.extend(line + "\n" for line in binds.values() if line)
        return "".join(out)


def kernel_units(jf):
    """(units text, the kernel's name, used globals) of a JITFunction."""
    u = Units()
    u.function(jf)
    return u.text(), u.units[0][0].split(" ", 2)[1], tuple(u.used_globals)
