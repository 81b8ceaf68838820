#!/usr/bin/env python3
"""Builds and exports (Keras 3, model.export) the TensorFlow models used by
pams-cpp's TensorFlowAgent:

* the sample's model (samples/tensorflow/model): features -> a small
  network -> tanh signal, plus a little noise from stateless random ops
  seeded by the agent's prng (input "seed");
* with --heavy, a benchmark model of 2.4 million parameters (~1-1.5 ms a
  call on one CPU thread).

Inputs are named "features" (float32 [-1, n]) and "seed" (int32 [-1, 2]),
the output "signal" (float32 [-1, 1]), as TensorFlowAgent expects. The
weights come from seeded initializers, so the model can be regenerated.

Usage: make_tf_model.py OUT_DIR [--features N] [--heavy]
(run with a Python that has tensorflow, e.g. .venv-tf/bin/python)
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402


HEAVY_LAYERS = 4


class StatelessNoise(keras.layers.Layer):
    """Adds scale * N(0, 1) drawn by a stateless op from the given seed."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def call(self, x, seed):
        return x + self.scale * tf.random.stateless_normal(tf.shape(x), seed=seed[0])


def build(n_features, heavy):
    keras.utils.set_random_seed(20261129)
    features = keras.Input(shape=(n_features,), name="features", dtype="float32")
    seed = keras.Input(shape=(2,), name="seed", dtype="int32")
    x = features
    if heavy:
        # An [8, 768] activation through 768x768 layers: each weight read
        # from memory serves 8 rows, so a call is bound by arithmetic rather
        # than by memory bandwidth, which two workers on a small machine
        # share (a plain matrix-vector product of the same size scales to
        # 1.3-1.5x on 2 cores instead of 2x).
        x = keras.layers.Dense(8 * 768, activation="tanh")(x)
        x = keras.layers.Reshape((8, 768))(x)
        for _ in range(HEAVY_LAYERS):
            x = keras.layers.Dense(768, activation="tanh")(x)
        x = keras.layers.GlobalAveragePooling1D()(x)
    else:
        for units in (16, 8):
            x = keras.layers.Dense(units, activation="tanh")(x)
    signal = keras.layers.Dense(1, activation="tanh")(x)
    signal = StatelessNoise(0.05, name="signal")(signal, seed)
    return keras.Model({"features": features, "seed": seed}, {"signal": signal})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--features", type=int, default=10)
    p.add_argument("--heavy", action="store_true")
    args = p.parse_args()
    model = build(args.features, args.heavy)
    model.export(args.out, verbose=False)
    print(f"exported {args.out}: {model.count_params()} parameters")


if __name__ == "__main__":
    main()
