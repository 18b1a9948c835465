"""DeSyR light teachers: tabulated samples and a user callable (no torch, no deepxde)."""
