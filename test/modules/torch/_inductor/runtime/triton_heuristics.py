# Host-side decorators in Inductor; tric ignores them.
def pointwise(size_hints, filename=None, triton_meta=None, inductor_meta=None, min_elem_per_thread=0):
    def deco(fn):
        return fn
    return deco
