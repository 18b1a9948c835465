"""An out-of-tree plugin with all five roles, written against ``desyr.plugin`` alone.

``plugin`` holds the well-behaved components; ``broken`` holds variants that each break one
rule of their role's contract (tests/test_author_kit.py runs ``check_component`` on both).
"""
