"""Human mesh recovery: SAM3 boxes, PromptHMR meshes, body models (issue 4).

The only package that imports torch, and only lazily inside the adapters that need it.
"""
