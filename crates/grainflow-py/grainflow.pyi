"""Granular dynamics (DEM) from Python: the grainflow engine, its scenes and validation.

The same ``Simulation`` as the ``grainflow`` command line: a scene read from a file, TOML
text, a built-in name or a dict; steps with the GIL released in a thread pool of the
simulation's own; read-only NumPy views of the particle arrays without copies; contacts,
walls, energies and stresses; checkpoints that resume bit for bit; the validation cases.
Errors are worded as the command line words them. See docs/python.md.
"""

import os
from typing import Any, Callable, Dict, List, Optional, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
Array = npt.NDArray[np.float64]

class Error(Exception):
    """Every error grainflow raises: its text is the command line's, after ``error: ``."""

class SceneError(Error):
    """A scene the library refuses.

    ``field`` is the dotted path of the value or key (``materials[0].sliding_friction``; empty
    where the parser names none), ``reason`` what is wrong, ``place`` the file (or ``dict``,
    ``text``) with line and column where known, and ``problems`` every refusal, one line each,
    as ``grainflow check`` lists them.
    """

    field: str
    reason: str
    place: Optional[str]
    problems: List[str]

class UnstableError(Error):
    """A run that went bad: the simulated ``time`` (s), the ``step``, the grain's ``id`` and
    the ``reason`` with its likely cause."""

    time: float
    step: int
    id: int
    reason: str

class FileError(Error):
    """A file that cannot be read or written, or whose content is wrong (``path``)."""

    path: str

class Energies(TypedDict):
    """Energies of a state (J)."""

    translational: float
    rotational: float
    potential: float

class Contacts(TypedDict):
    """The touching grain pairs of the last step, m of them; forces and couples on the
    second grain of each pair."""

    ids: npt.NDArray[np.uint64]
    points: Array
    normals: Array
    overlaps: Array
    normal_forces: Array
    tangential_forces: Array
    rolling: Array
    twisting: Array

class Wall(TypedDict):
    """A wall's pose at the current time and the load of the last step."""

    offset: Array
    rotation: Array
    center: Array
    velocity: Array
    omega: Array
    force: Optional[Array]
    torque: Optional[Array]

# One compared number of a validation case (functional form: ``pass`` is a keyword).
Metric = TypedDict(
    "Metric",
    {
        "case": str,
        "model": str,
        "metric": str,
        "value": float,
        "expected": float,
        "tolerance": float,
        "comparison": str,
        "pass": bool,
    },
)

class Simulation:
    """A grainflow simulation: the library's ``Simulation`` with its own thread pool.

    Build one with ``from_toml``, ``from_dict`` or ``resume``. The particle arrays are
    read-only NumPy views of the simulation's memory (``base`` is the simulation); a view
    shows the state when it was taken, and the simulation never changes memory a live view
    shows (a step while one is alive moves the simulation onto a copy of that array).
    """

    @classmethod
    def from_toml(
        cls,
        scene: PathLike,
        *,
        threads: Optional[int] = None,
        base: Optional[PathLike] = None,
    ) -> "Simulation":
        """Builds a simulation from a scene file, TOML text or a built-in scene's name (as
        ``grainflow run SCENE`` reads it).

        ``threads``: worker threads (default: every core; results are bit-identical for any
        count). ``base``: the folder relative paths in the scene are read from (default: the
        file's folder, else the current one). Raises ``SceneError`` for a scene the library
        refuses, worded as the command line words it.
        """

    @classmethod
    def from_dict(
        cls,
        scene: Dict[str, Any],
        *,
        threads: Optional[int] = None,
        base: Optional[PathLike] = None,
    ) -> "Simulation":
        """Builds a simulation from a dict with the keys of the TOML (as ``tomllib.load``
        gives it, or ``grainflow.scene(name)``); NumPy arrays and scalars are taken as lists
        and numbers. Errors are the TOML reader's, naming the field, in a file called
        ``dict``."""

    @classmethod
    def resume(
        cls,
        scene: Union[PathLike, Dict[str, Any]],
        checkpoint: PathLike,
        *,
        threads: Optional[int] = None,
        base: Optional[PathLike] = None,
    ) -> "Simulation":
        """Resumes a run from a checkpoint, as ``grainflow run SCENE --resume CHECKPOINT``:
        the scene must be the checkpoint's, apart from its duration and outputs; the run
        continues bit for bit."""

    def step(self, n: int = 1) -> None:
        """Advances ``n`` steps with the scene's method, the GIL released."""

    def run(
        self,
        until: float,
        every: Optional[float] = None,
        callback: Optional[Callable[["Simulation"], Optional[bool]]] = None,
    ) -> bool:
        """Steps until the simulated time reaches ``until`` (s).

        With ``callback``, calls ``callback(sim)`` after the step that reaches each multiple
        of ``every`` (s) past the start (after every step when ``every`` is None); a callback
        returning ``False`` stops the run. Returns True when the run reached ``until``, False
        when the callback stopped it.
        """

    def checkpoint(self, path: PathLike) -> None:
        """Writes the whole state to ``path``, as the command line's checkpoints."""

    def keep_contacts(self) -> None:
        """Keeps, from the next step on, the per-pair forces ``contacts()`` and ``stress()``
        read (soft spheres; scenes with ``output.contacts`` or ``output.stress`` keep them
        from the start)."""

    def contacts(self) -> Contacts:
        """The touching grain pairs of the last step as arrays. Needs ``keep_contacts()`` and
        a step since."""

    def energies(self) -> Energies:
        """Energies of the current state (J)."""

    def stress(self, lo: npt.ArrayLike, hi: npt.ArrayLike) -> Array:
        """The stress tensor (Pa, 3 × 3, compression negative) averaged over the box
        [lo, hi] (m) (004 eq 3). Needs ``keep_contacts()`` and a step since."""

    def plane_stress(self, axis: int, at: float, area: float) -> Array:
        """Row ``axis`` of the stress tensor (Pa) on the plane x_axis = ``at`` (m) of area
        ``area`` (m²) (003 eq 36). Needs ``keep_contacts()`` and a step since."""

    @property
    def walls(self) -> List[Wall]:
        """The walls' poses and the loads of the last step, one dict each."""

    @property
    def shared_wall_force(self) -> Optional[Tuple[Array, int]]:
        """The force (N) on walls from grains touching several walls at once, and how many
        such grains; None for methods other than soft spheres."""

    @property
    def time(self) -> float:
        """Simulated time (s)."""

    @property
    def dt(self) -> float:
        """Time step (s)."""

    @property
    def steps(self) -> int:
        """Steps taken since the run began."""

    @property
    def threads(self) -> int:
        """Worker threads of this simulation."""

    def __len__(self) -> int:
        """Number of grains."""

    @property
    def positions(self) -> Array:
        """Centres (m), a read-only (n, 3) view; set with a float64 (n, 3) array of finite
        values (wrapped into the periodic box)."""

    @positions.setter
    def positions(self, value: Array) -> None: ...
    @property
    def velocities(self) -> Array:
        """Velocities (m/s), a read-only (n, 3) view; set with a float64 (n, 3) array of
        finite values."""

    @velocities.setter
    def velocities(self, value: Array) -> None: ...
    @property
    def spins(self) -> Array:
        """Angular velocities (rad/s), a read-only (n, 3) view; set with a float64 (n, 3)
        array of finite values."""

    @spins.setter
    def spins(self, value: Array) -> None: ...
    @property
    def forces(self) -> Array:
        """Forces on each grain at the last evaluation (N), a read-only (n, 3) view."""

    @property
    def torques(self) -> Array:
        """Torques on each grain at the last evaluation (N m), a read-only (n, 3) view."""

    @property
    def radii(self) -> Array:
        """Radii (m), a read-only (n,) view."""

    @property
    def masses(self) -> Array:
        """Masses (kg), a read-only (n,) view."""

    @property
    def ids(self) -> npt.NDArray[np.uint64]:
        """Stable ids, a read-only (n,) view; the order of grains may change between steps,
        ids do not."""

def scenes() -> Dict[str, str]:
    """The built-in scenes: name → one line on what each shows."""

def scene(name: str) -> Dict[str, Any]:
    """The built-in scene ``name`` as a dict with the keys of its TOML."""

def scene_text(name: str) -> str:
    """The built-in scene ``name`` as TOML text."""

def validation_cases() -> Dict[str, str]:
    """The validation cases: name → one line on what each checks."""

def validate(name: str, full: bool = False, *, threads: Optional[int] = None) -> List[Metric]:
    """Runs the validation case ``name`` (the full-size version when ``full``) and returns its
    metrics, one dict each, with ``pass`` whether the comparison holds."""
