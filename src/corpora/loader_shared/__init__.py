"""The code every loader imports from the installed package, one name a line (datasets 3.6
misreads `import a, b`): `from corpora.loader_shared.fields import Field`."""
