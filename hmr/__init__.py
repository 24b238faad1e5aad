"""Human mesh recovery: the neutral person-mesh record and its sources (issue 4).

The only package that imports torch, and only lazily inside the adapters that need it.
"""
