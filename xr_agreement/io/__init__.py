"""Label-set records, long tables and annotation files -> decision arrays."""

from .files import AnnotationFileError
from .reading import read_annotations
from .records import from_long, from_sets
from .spans import read_spans

__all__ = ["from_sets", "from_long", "read_annotations", "read_spans", "AnnotationFileError"]
