"""The C++ side against TensorFlow itself: a model exported by Keras and run
through pams-cpp's C API (tensorflow_model_check, what TensorFlowAgent
calls) gives, bit for bit, what TensorFlow's Python gives on the same
inputs with the same thread counts, for the sample model
(scripts/make_tf_model.py) and a model of this test's own:

* what the exported SavedModel's signature gives in Python, always;
* what Keras's own model(x) gives, with TensorFlow's oneDNN optimizations
  off (TF_ENABLE_ONEDNN_OPTS=0). With them on (TensorFlow's default on x86)
  Keras's eager call and any run of the exported graph, the C API's or
  Python's, differ in the last bit of some outputs: oneDNN computes the
  graph's fused operations in another order (checked below too).
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

if __name__ == "__main__" and "--onednn-off" in sys.argv:
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))  # make_tf_model
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

# The thread counts of both sides, before TensorFlow runs here.
tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)

import keras  # noqa: E402
import make_tf_model  # noqa: E402

CHECK = os.environ.get("PAMS_TF_MODEL_CHECK",
                       os.path.join(ROOT, "build", "tests", "tensorflow_model_check"))


def own_model():
    """Another architecture: two hidden layers of other activations and two
    outputs."""
    keras.utils.set_random_seed(7)
    features = keras.Input(shape=(6,), name="features", dtype="float32")
    x = keras.layers.Dense(24, activation="relu")(features)
    x = keras.layers.Dense(12, activation="sigmoid")(x)
    return keras.Model({"features": features},
                       {"signal": keras.layers.Dense(1, activation="tanh")(x),
                        "raw": keras.layers.Dense(3)(x)})


def c_api_outputs(path, inputs):
    done = subprocess.run([CHECK, path, "1", "1"], input=json.dumps(
        {k: v.tolist() for k, v in inputs.items()}), capture_output=True, text=True,
        timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    return {k: np.array(v, dtype=np.uint32) for k, v in json.loads(done.stdout).items()}


def bits(outputs):
    return {k: np.asarray(v, dtype=np.float32).reshape(-1).view(np.uint32).tolist()
            for k, v in outputs.items()}


def case(which, rows, directory):
    """The model, its exported path and inputs."""
    model = make_tf_model.build(10, False) if which == "sample" else own_model()
    path = os.path.join(directory, f"{which}-{rows}")
    model.export(path, verbose=False)
    rng = np.random.default_rng(rows)
    n_features = 10 if which == "sample" else 6
    inputs = {"features": rng.normal(size=(rows, n_features)).astype(np.float32)}
    if which == "sample":
        inputs["seed"] = rng.integers(0, 2**31 - 1, size=(rows, 2)).astype(np.int32)
    return model, path, inputs


def compare(directory):
    """{(which, rows): (C API == the SavedModel in Python, C API == Keras's
    model(x), how many outputs differ from Keras's)}"""
    out = {}
    for which in ("sample", "own"):
        for rows in (1, 7):
            model, path, inputs = case(which, rows, directory)
            ours = {k: v.tolist() for k, v in c_api_outputs(path, inputs).items()}
            signature = tf.saved_model.load(path).signatures["serving_default"]
            graph = bits(signature(**{k: tf.constant(v) for k, v in inputs.items()}))
            eager = bits(model({k: tf.constant(v) for k, v in inputs.items()}, training=False))
            differ = sum(a != b for k in eager for a, b in zip(ours[k], eager[k]))
            out[f"{which}-{rows}"] = (ours == graph, ours == eager, differ)
    return out


def test_the_c_api_gives_the_savedmodels_outputs_bit_for_bit(tmp_path):
    results = compare(str(tmp_path))
    assert all(same_graph for same_graph, _, _ in results.values()), results


def test_the_c_api_gives_keras_outputs_bit_for_bit_without_onednn(tmp_path):
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--onednn-off",
                           str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.splitlines()[-1])
    assert all(same_graph and same_eager for same_graph, same_eager, _ in results.values()), (
        results)


if __name__ == "__main__":
    print(json.dumps(compare(sys.argv[-1])))
