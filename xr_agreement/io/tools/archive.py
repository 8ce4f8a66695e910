"""Safe reading of the files of an export archive (a .zip) or an export folder.

doccano exports a project as a zip of one file per member (``backend/data_export``:
``zip_files`` writes each file under its base name, deflated). A zip handed over may also come
from another zipper, or from someone hostile; each member is read under these rules:

- Names follow the zip format (PKWARE APPNOTE.TXT 4.4.17.1: a relative path, no drive letter
  or leading slash, forward slashes). A backslash is read as a folder separator (Windows
  zippers wrote them), so ``export\\alice.jsonl`` is the file ``alice.jsonl`` in a folder. A
  name that is absolute (``/alice.jsonl``, ``C:/alice.jsonl``) or climbs (``../alice.jsonl``)
  is refused, naming the member: no exporter writes it.
- Folders, hidden files and macOS's ``__MACOSX`` folder are left out.
- A member is read as a stream, in chunks, and refused as soon as it expands past
  :data:`MAX_MEMBER_BYTES`, or the whole archive past :data:`MAX_ARCHIVE_BYTES`; a member
  whose declared sizes say it expands more than :data:`MAX_RATIO` times is refused before it
  is read (a zip bomb). The declared sizes are checked first, and the bounded read holds
  whatever a header claims.
- A damaged, encrypted or unsupported member is one line naming it, never a traceback.
"""

from __future__ import annotations

import codecs
import os
import re
import zipfile
import zlib

from ..files import AnnotationFileError

# A real doccano member file holds one user's examples with their text: tens of MB for a large
# project. 256 MiB is ten times that, and what one member may cost in memory (its bytes are
# read in chunks and decoded to text as they come).
MAX_MEMBER_BYTES = 256 * 2**20

# All members together: a project of 5,000 members of 200 kB each is 1 GB of text.
MAX_ARCHIVE_BYTES = 2 * 2**30

# Text deflates 3 to 10 times, a JSONL export full of repeated keys up to ~30 times; a zip
# bomb expands thousands of times. Only members expanding past RATIO_FLOOR_BYTES are checked
# (a small file of one repeated byte can deflate well and harms nobody).
MAX_RATIO = 100
RATIO_FLOOR_BYTES = 2**20

# how much of a member is read at a time
CHUNK_BYTES = 2**20

_DRIVE = re.compile(r"^[A-Za-z]:")


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def member_name(name: str, path) -> str | None:
    """The member's path inside the archive with forward slashes, or None for what is left
    out (a folder, a hidden file, ``__MACOSX``); an absolute or climbing name is refused.

    Examples
    --------
    >>> member_name("export\\\\alice.jsonl", "x.zip")
    'export/alice.jsonl'
    >>> member_name("__MACOSX/._alice.jsonl", "x.zip") is None
    True
    >>> member_name("../alice.jsonl", "x.zip")
    Traceback (most recent call last):
    ...
    xr_agreement.io.files.AnnotationFileError: x.zip: the member '../alice.jsonl' has an \
absolute or climbing path ('/', a drive letter or '..'), which the zip format forbids and no \
exporter writes; not read: zip the export's files again, by their names
    """
    normal = name.replace("\\", "/")
    parts = [p for p in normal.split("/") if p not in ("", ".")]
    if normal.startswith("/") or _DRIVE.match(normal) or ".." in parts:
        raise AnnotationFileError(
            f"the member {name!r} has an absolute or climbing path ('/', a drive letter or "
            "'..'), which the zip format forbids and no exporter writes; not read: zip the "
            "export's files again, by their names", path=path)
    if normal.endswith("/") or not parts or parts[-1].startswith(".") or "__MACOSX" in parts:
        return None
    return "/".join(parts)


def archive_members(path, suffixes: tuple[str, ...] | None = None,
                    ) -> list[tuple[zipfile.ZipInfo, str]]:
    """The (ZipInfo, name) of the files of the zip at ``path`` that are read, by name
    (``suffixes``: only the names ending so, case aside); their declared sizes are checked
    against the limits here, before anything is expanded."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise AnnotationFileError(f"cannot open the zip archive: {error}", path=path) from None
    with archive:
        infos = archive.infolist()
    members, total = [], 0
    for info in infos:
        if info.is_dir():
            continue
        name = member_name(info.filename, path)
        if name is None or (suffixes is not None and not name.lower().endswith(suffixes)):
            continue
        _check_declared(info, path)
        total += info.file_size
        if total > MAX_ARCHIVE_BYTES:
            raise AnnotationFileError(
                f"the members expand to more than {_mib(MAX_ARCHIVE_BYTES)} together (the "
                "limit for one export); not read: read the members' files one by one",
                path=path)
        members.append((info, name))
    return sorted(members, key=lambda m: m[1])


def _check_declared(info: zipfile.ZipInfo, path) -> None:
    where = f"{path}:{info.filename}"
    if info.file_size > MAX_MEMBER_BYTES:
        raise AnnotationFileError(
            f"the member expands to {_mib(info.file_size)}, more than the "
            f"{_mib(MAX_MEMBER_BYTES)} one member file of an export may hold; not read "
            "(a zip bomb, or not an export)", path=where)
    if (info.file_size > RATIO_FLOOR_BYTES
            and info.file_size > MAX_RATIO * max(info.compress_size, 1)):
        raise AnnotationFileError(
            f"the member expands {info.file_size / max(info.compress_size, 1):,.0f} times "
            f"({info.compress_size:,} bytes to {_mib(info.file_size)}), more than the "
            f"{MAX_RATIO} times text is compressed; not read (a zip bomb)", path=where)


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path,
                budget: int = MAX_MEMBER_BYTES) -> tuple[str, int]:
    """The text of one member (UTF-8, a BOM dropped) and the bytes it expanded to, read in
    chunks and refused as soon as it expands past ``budget`` bytes (at most
    :data:`MAX_MEMBER_BYTES`), whatever its header says."""
    where = f"{path}:{info.filename}"
    limit = min(budget, MAX_MEMBER_BYTES)
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    pieces, read = [], 0
    try:
        with archive.open(info) as handle:
            while True:
                chunk = handle.read(CHUNK_BYTES)
                read += len(chunk)
                if read > limit:
                    raise AnnotationFileError(
                        f"the member expands past {_mib(limit)}, more than one member file "
                        "of an export may hold; not read (a zip bomb, or not an export)"
                        if limit == MAX_MEMBER_BYTES else
                        f"the members expand to more than {_mib(MAX_ARCHIVE_BYTES)} together "
                        "(the limit for one export); not read", path=where)
                pieces.append(decoder.decode(chunk, final=not chunk))
                if not chunk:
                    break
    except UnicodeDecodeError:
        raise AnnotationFileError("not UTF-8 text", path=where) from None
    except RuntimeError as error:  # zipfile: an encrypted member and no password
        raise AnnotationFileError(f"cannot read the member: {error}", path=where) from None
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, OSError,
            ValueError) as error:
        raise AnnotationFileError(f"cannot read the member (damaged or unsupported zip): "
                                  f"{error}", path=where) from None
    return "".join(pieces), read


def zip_texts(path, suffixes: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """(name, text) of every file of the zip at ``path`` that is read (see the module
    docstring; ``suffixes``: only the names ending so, others never opened), sorted by
    name.

    Examples
    --------
    >>> import os, tempfile, zipfile
    >>> path = os.path.join(tempfile.mkdtemp(), "export.zip")
    >>> with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
    ...     archive.writestr("export\\\\bob.jsonl", "{}\\n")
    ...     archive.writestr("__MACOSX/._bob.jsonl", "")
    >>> zip_texts(path)
    [('export/bob.jsonl', '{}\\n')]
    """
    members = archive_members(path, suffixes)
    out, left = [], MAX_ARCHIVE_BYTES
    with zipfile.ZipFile(path) as archive:
        for info, name in members:
            text, expanded = read_member(archive, info, path, budget=left)
            left -= expanded
            out.append((name, text))
    return out


def folder_texts(path, suffixes: tuple[str, ...] | None = None) -> list[tuple[str, str]]:
    """(name, text) of the files directly in the folder ``path`` (hidden files left out;
    ``suffixes``: only the names ending so), sorted by name; a file larger than
    :data:`MAX_MEMBER_BYTES` is refused before it is read."""
    out = []
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if name.startswith(".") or not os.path.isfile(full) or (
                suffixes is not None and not name.lower().endswith(suffixes)):
            continue
        if os.path.getsize(full) > MAX_MEMBER_BYTES:
            raise AnnotationFileError(
                f"the file holds {_mib(os.path.getsize(full))}, more than the "
                f"{_mib(MAX_MEMBER_BYTES)} one member file of an export may hold; not read",
                path=full)
        try:
            with open(full, encoding="utf-8-sig") as handle:
                out.append((name, handle.read()))
        except UnicodeDecodeError as error:
            raise AnnotationFileError(f"not UTF-8 text: {error.reason}", path=full) from None
    return out
