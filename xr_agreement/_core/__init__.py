"""Shared internals: input checks, small array helpers, threads, categorical codes. Imports
no coefficient family."""
