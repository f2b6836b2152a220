"""The Python package's pure modules (python/dgatd/*.py that import nothing compiled) loaded from the
source tree beside this folder, for the scripts that run without a build: fit_material.py (`dgatd
fit-material`), slab_reflectance.py, mie_sphere.py."""
import importlib.util
import pathlib


def load(module):
    """python/dgatd/<module>.py as a module of its own."""
    path = pathlib.Path(__file__).resolve().parent.parent / "python" / "dgatd" / (module + ".py")
    spec = importlib.util.spec_from_file_location("dgatd_" + module, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded
