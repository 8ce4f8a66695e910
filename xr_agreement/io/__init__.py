"""Label-set records, long tables and annotation files -> decision arrays."""

from .files import AnnotationFileError
from .reading import read_annotations
from .records import from_long, from_sets

__all__ = ["from_sets", "from_long", "read_annotations", "AnnotationFileError"]
