"""The PTO costmodel's query language and its results. Pure: no I/O.

Owns: queries (`TMATMUL half half float --m 128 ...`), sweeps, validation, the tool's
output lines, result records, sorting and exports. The engines that run queries are in
`pto_tui.costmodel`.
May import: the core base.
"""
