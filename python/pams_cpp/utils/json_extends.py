"""json_extends (PAMS's ``pams.utils.json_extends.json_extends``): a config
object with its ``"extends"`` chain resolved."""
from typing import Dict
from typing import List
from typing import Optional


def json_extends(whole_json: Dict, parent_name: str, target_json: Dict,
                 excludes_fields: Optional[List[str]] = None) -> Dict:
    """`target_json` (the object at key `parent_name` of `whole_json`) with
    the keys of the objects its "extends" names, recursively: its own keys
    win over those it extends, those of nearer parents over farther ones,
    and `excludes_fields` are not inherited. Raises ValueError for a
    missing parent or a loop.

    >>> json_extends({"p": {"a": 1, "b": 1}}, "c", {"extends": "p", "b": 0})
    {'a': 1, 'b': 0}
    """
    excluded = set(excludes_fields or [])
    result = dict(target_json)
    seen = [parent_name]
    while "extends" in result:
        parent = result.pop("extends")
        if parent not in whole_json:
            raise ValueError(f"{parent_name} cannot extends {parent} because {parent} is missing")
        if parent in seen:
            raise ValueError(f"{parent_name} has extending loop")
        seen.append(parent)
        inherited = {k: v for k, v in whole_json[parent].items() if k not in excluded}
        inherited.update(result)
        result = inherited
    return result


__all__ = ["json_extends"]
