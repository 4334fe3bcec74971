"""
Rules the suite enforces over the whole checkout: layers, module sizes, the
architecture document, interfaces, contracts, packaging.
"""
