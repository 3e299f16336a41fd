"""`iop.runtime.iris`: the `iris` module user code sees (Conveyor's shim)."""


def get_iris(namespace=None):
    import iris

    return iris
