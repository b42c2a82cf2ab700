"""Screens: launcher, wizard, project workbench, round detail, compare, help, documents."""
