"""Checks shared by the figure tests: the PNG exists, has the expected pixel size and is not blank."""
from pathlib import Path

import numpy as np

SIZES = {(400, 640), (400, 960)}


def check_png(path, size=None):
    import matplotlib.image as mpimg

    path = Path(path)
    assert path.is_file() and path.stat().st_size > 0, path
    img = mpimg.imread(path)
    assert img.shape[:2] in (SIZES if size is None else {size}), (path, img.shape)
    flat = img[..., :3].reshape(-1, 3)
    assert float(np.var(flat)) > 0, f"{path} is blank"
    assert len(np.unique(flat, axis=0)) > 1, f"{path} has one colour"
