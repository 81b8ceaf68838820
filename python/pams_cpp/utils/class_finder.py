"""find_class (PAMS's ``pams.utils.class_finder.find_class``): a built-in
class by the name configs use."""
import importlib
from typing import List
from typing import Optional
from typing import Type

_SPACES = ("pams_cpp", "pams_cpp.agents", "pams_cpp.events", "pams_cpp.logs", "pams_cpp.utils")


def find_class(name: str, optional_class_list: Optional[List[Type]] = None) -> Type:
    """Finds the class a config names (PAMS's ``find_class``).

    Args:
        name (str): the class's name, as in a config's "class".
        optional_class_list (List[Type] | None): user classes to look among
            too (runners take them through class_register).

    Returns:
        Type: the class (or object) called name among pams_cpp's markets,
        agents, events, loggers and utilities, or among the user classes.

    Raises:
        AttributeError: no class or more than one has the name.
    """
    found: List[Type] = []
    for space in _SPACES:
        module = importlib.import_module(space)
        # Whatever the name is there (PAMS finds LIMIT_ORDER too), once.
        if hasattr(module, name):
            candidate = getattr(module, name)
            if all(candidate is not f for f in found):
                found.append(candidate)
    for cls in optional_class_list or []:
        if cls.__name__ == name and cls not in found:
            found.append(cls)
    if len(found) != 1:
        raise AttributeError(f"class for {name} is found {len(found)} times")
    return found[0]


__all__ = ["find_class"]
