"""json_extends (PAMS's ``pams.utils.json_extends.json_extends``): a config
object with its ``"extends"`` chain resolved."""
from typing import Dict
from typing import List
from typing import Optional


def json_extends(whole_json: Dict, parent_name: str, target_json: Dict,
                 excludes_fields: Optional[List[str]] = None) -> Dict:
    """Resolves a config object's ``"extends"`` chain (PAMS's
    ``json_extends``): the object with the keys of the objects it extends,
    recursively.

    Args:
        whole_json (Dict): the whole config.
        parent_name (str): the key of target_json in whole_json.
        target_json (Dict): the object to resolve.
        excludes_fields (List[str] | None): keys that are not inherited.

    Returns:
        Dict: the resolved object: its own keys win over those it extends,
        those of nearer parents over farther ones; no "extends" key.

    Raises:
        ValueError: a parent is missing, or the chain loops.

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
