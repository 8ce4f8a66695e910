"""The earlier multi-label measures: augmented kappa, MASI, boot-F1, A_m."""

from .api import REFERENCES, am, augmented_kappa, boot_f1, masi

__all__ = ["augmented_kappa", "masi", "boot_f1", "am", "REFERENCES"]
