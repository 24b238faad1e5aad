"""Which accelerator this process can use (torch imported lazily, as everywhere in hmr/)."""

from __future__ import annotations


def cuda_available() -> bool:
    """True when torch is installed and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
