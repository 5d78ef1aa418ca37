"""The code every loader imports from the installed package, one import per line (datasets 3.6
misreads `import a, b`): `from corpora.loader_shared.fields import Field`. `loader_common` holds
the source files of a build, the checks that a file is data and the one shape of an error;
`strict_json` the JSON reading; `fields` the field builders; `builder_base` the config class and
the base of every builder."""
