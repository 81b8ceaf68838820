"""Batched model calls: agents that say "this is my model input; give me the
output", so that a runner makes one model call per model per round.

The agents asked in one round all see the market as it was when the round
started (SequentialRunner commits no order before every agent of the step
was asked; the agent-parallel runners ask ``maxNormalOrders - orders so
far`` agents at once), so their model calls can be one call on a batch. An
agent class opts in by defining both::

    def prepare_model_calls(self, markets) -> ModelCall | list[ModelCall] | None
    def submit_orders_with_model_outputs(self, markets, outputs) -> list[Order | Cancel]

``outputs`` has one entry per ModelCall, in the order prepare returned them
(``[]`` when it returned None or ``[]``): the row of the model's output
for that call's input row, as a numpy array. The runner (every runner, with
``simulation.batchModelCalls`` true, the default) runs each round's
prepare_model_calls in SequentialRunner's order, groups the calls by model
object, calls each model once on its stacked rows (``run_batch``), and
hands each agent its rows. Such a class still has a working
``submit_orders`` (Agent provides one: prepare, each model on its single
row, then submit_orders_with_model_outputs) for code that calls it by hand
and for ``batchModelCalls`` false.
"""
from typing import Any
from typing import Dict
from typing import List
from typing import Optional
from typing import Sequence
from typing import Tuple



class ModelCall:
    """One model call an agent asks for (batched model calls: see the
    module's doc). Calls of one round with the same model object (``is``)
    are made as one call on their stacked rows, and each agent gets its
    row of the output.

    Args:
        model (Callable): the model: a Keras model, a torch module, a JAX
            function, a numpy function: anything callable on a batch.
        inputs (array-like): one row, of shape (features,) or (1, features):
            numpy, a list, or a TensorFlow, PyTorch or JAX tensor.

    Raises:
        TypeError: model is not callable.
    """

    __slots__ = ("model", "inputs")

    def __init__(self, model: Any, inputs: Any) -> None:
        if not callable(model):
            raise TypeError(f"ModelCall's model must be callable, got {type(model).__name__}")
        self.model = model
        self.inputs = inputs

    def __repr__(self) -> str:
        return f"ModelCall(model={_model_name(self.model)}, inputs={self.inputs!r})"


def _as_calls(result: Any) -> List[ModelCall]:
    """What prepare_model_calls returned, as a list of ModelCalls (TypeError
    for anything else)."""
    if result is None:
        return []
    if isinstance(result, ModelCall):
        return [result]
    if isinstance(result, (list, tuple)):
        for call in result:
            if not isinstance(call, ModelCall):
                raise TypeError("prepare_model_calls must return a ModelCall, a list of "
                                f"ModelCalls or None, got a list with a {type(call).__name__}")
        return list(result)
    raise TypeError("prepare_model_calls must return a ModelCall, a list of ModelCalls or "
                    f"None, got {type(result).__name__}")


def _model_name(model: Any) -> str:
    name = getattr(model, "name", None)
    if not isinstance(name, str):
        name = getattr(model, "__name__", None)
    kind = type(model).__name__
    return f"{kind} {name!r}" if isinstance(name, str) else kind


def _framework(x: Any) -> str:
    """"tensorflow", "torch", "jax" or "numpy" (anything else: numpy)."""
    module = type(x).__module__.split(".")[0]
    if module in ("tensorflow", "torch", "jax", "jaxlib"):
        return "jax" if module == "jaxlib" else module
    return "numpy"


def _is_keras(model: Any) -> bool:
    for klass in type(model).__mro__:
        module = klass.__module__
        if module.split(".")[0] in ("keras", "tf_keras") or module.startswith(
                "tensorflow.python.keras"):
            return True
    return False


def _is_torch_module(model: Any) -> bool:
    return any(k.__module__.startswith("torch.nn") and k.__name__ == "Module"
               for k in type(model).__mro__)


def _stack(rows: Sequence[Any]) -> Any:
    """The rows as one batch, in their framework when they share one (a row
    of shape (features,) or (1, features); more dimensions: a row is what
    follows a leading batch axis of 1, or the whole input otherwise)."""
    kinds = {_framework(r) for r in rows}
    kind = kinds.pop() if len(kinds) == 1 else "numpy"
    if kind == "tensorflow":
        import tensorflow as tf

        return tf.concat([r if len(r.shape) >= 2 and r.shape[0] == 1 else tf.expand_dims(r, 0)
                          for r in rows], axis=0)
    if kind == "torch":
        import torch

        return torch.cat([r if r.dim() >= 2 and r.shape[0] == 1 else r.unsqueeze(0)
                          for r in rows], dim=0)
    if kind == "jax":
        import jax.numpy as jnp

        return jnp.concatenate([r if r.ndim >= 2 and r.shape[0] == 1 else r[None]
                                for r in rows], axis=0)
    import numpy as np  # here: pams_cpp itself runs without numpy

    arrays = [np.asarray(r) for r in rows]
    return np.concatenate([a if a.ndim >= 2 and a.shape[0] == 1 else a[None] for a in arrays],
                          axis=0)


def _to_numpy(output: Any) -> Any:
    """The output as a numpy array."""
    if _framework(output) == "torch":
        return output.detach().cpu().numpy()
    import numpy as np

    return np.asarray(output)


def _rows(output: Any, n: int) -> List[Any]:
    """The n rows of a model's output (numpy); a model returning a tuple or a
    list of outputs gives each row as a tuple of the outputs' rows."""
    if isinstance(output, (tuple, list)):
        parts = [_rows(o, n) for o in output]
        return [tuple(p[i] for p in parts) for i in range(n)]
    if isinstance(output, dict):
        parts = {k: _rows(v, n) for k, v in output.items()}
        return [{k: v[i] for k, v in parts.items()} for i in range(n)]
    array = _to_numpy(output)
    if array.ndim == 0 or array.shape[0] != n:
        raise ValueError(f"the model returned {array.shape} for a batch of {n} rows: a model "
                         "must return one output row per input row")
    return list(array)


def _call(model: Any, batch: Any) -> Any:
    if _is_keras(model):
        # As the seed calls its Keras models: inference mode (dropout and
        # batch normalization off).
        return model(batch, training=False)
    if _is_torch_module(model):
        import torch

        with torch.no_grad():
            return model(batch)
    return model(batch)


def run_batch(calls: Sequence[ModelCall], owners: Optional[Sequence[str]] = None) -> List[Any]:
    """Makes model calls in batches: the calls are grouped by model object
    (in order of first appearance) and each model is called once on its
    group's stacked rows (Keras models with training=False, torch modules
    under torch.no_grad).

    Args:
        calls (Sequence[ModelCall]): the calls.
        owners (Sequence[str] | None): each call's agent, named in a note
            added to an error a model raises.

    Returns:
        List[Any]: each call's output row (numpy; a tuple of rows for a model
        with several outputs), in the order of calls.

    Raises:
        Exception: what a model raises, with a note naming the model and
            its agents.
    """
    groups: Dict[int, Tuple[Any, List[int]]] = {}
    for i, call in enumerate(calls):
        group = groups.get(id(call.model))
        if group is None:
            groups[id(call.model)] = (call.model, [i])
        else:
            group[1].append(i)
    outputs: List[Any] = [None] * len(calls)
    for model, indices in groups.values():
        try:
            batch = _stack([calls[i].inputs for i in indices])
            rows = _rows(_call(model, batch), len(indices))
        except Exception as e:
            if owners is not None and hasattr(e, "add_note"):
                agents = list(dict.fromkeys(owners[i] for i in indices))
                rows = "1 row" if len(indices) == 1 else f"{len(indices)} rows"
                e.add_note(f"in the batched call of model {_model_name(model)} on {rows}, "
                           f"for agents {', '.join(agents)}")
            raise
        for i, row in zip(indices, rows):
            outputs[i] = row
    return outputs


def submit_orders_with_model_calls(agent: Any, markets: Any) -> List[Any]:
    """What a batching agent's submit_orders does unbatched: prepare, each
    model on its single row, then submit_orders_with_model_outputs."""
    calls = _as_calls(agent.prepare_model_calls(markets))
    outputs = [run_batch([call])[0] for call in calls]
    return agent.submit_orders_with_model_outputs(markets, outputs)


def defines_model_calls(cls: type) -> Tuple[bool, bool]:
    """Whether cls defines prepare_model_calls, and whether it defines
    submit_orders_with_model_outputs."""
    return (callable(getattr(cls, "prepare_model_calls", None)),
            callable(getattr(cls, "submit_orders_with_model_outputs", None)))


def check_model_call_methods(cls: type) -> bool:
    """Whether cls batches its model calls (defines both methods); TypeError
    naming cls and the missing method when it defines only one. A class
    that also defines a submit_orders of its own is warned that runners
    batching model calls (batchModelCalls, true by default) never call it."""
    prepare, submit = defines_model_calls(cls)
    if prepare != submit:
        missing = "submit_orders_with_model_outputs" if prepare else "prepare_model_calls"
        present = "prepare_model_calls" if prepare else "submit_orders_with_model_outputs"
        raise TypeError(f"{cls.__name__} defines {present} but not {missing}: an agent whose "
                        "model calls are batched defines both")
    if prepare and _defines_own_submit_orders(cls):
        from .._warnings import warn

        warn(f"{cls.__name__} defines submit_orders and batches its model calls "
             "(prepare_model_calls, submit_orders_with_model_outputs): with "
             "simulation.batchModelCalls true (the default) the runners call the batching "
             "methods and never its submit_orders; set batchModelCalls false to have "
             "submit_orders called instead")
    return prepare


def _defines_own_submit_orders(cls: type) -> bool:
    """Whether a class of cls's mro outside pams_cpp defines submit_orders
    (the unbatched one pams_cpp gives batching classes is not one)."""
    for klass in cls.__mro__:
        method = vars(klass).get("submit_orders")
        if method is not None:
            return (not klass.__module__.startswith(("pams_cpp.", "pams."))
                    and getattr(method, "__name__", "") != "_submit_orders_with_model_calls")
    return False


__all__ = ["ModelCall", "run_batch"]
