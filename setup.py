"""The packages, found rather than listed (the rest of the build is in pyproject.toml).

``tardis_envs.configs`` is the top-level ``configs/`` folder, shipped inside the package so
that ``tardis-envs`` finds a game's default settings wherever it runs; a folder mapped from
elsewhere is the one thing pyproject.toml's package discovery cannot express.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["tardis_envs", "tardis_envs.*", "agents", "agents.*"]), "tardis_envs.configs"],
    package_dir={"tardis_envs.configs": "configs"},
)
