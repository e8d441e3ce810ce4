"""Weights of :mod:`server.bots.value`, written by bench/train.py (do not edit).

Data version 1: self-play of the normal level (bench/train.py),
the features of server.bots.value; ridge regression, lam 20.0.
"""

DATA_VERSION = 1
FEATURES = 24

NOTES: dict[str, str] = {
    'remi': (
        '--seed 1, 800 deals, 16616 rows, 29 s CPU; held-out RMSE: model 121.8, estimate '
        'only 133.8, mean 133.9 (3320 rows)'
    ),
    'remi101': (
        '--seed 1, 400 deals, 8606 rows, 39 s CPU; held-out RMSE: model 108.7, estimate o'
        'nly 112.9, mean 118.0 (1553 rows)'
    ),
}

WEIGHTS: dict[str, list[float]] = {
    'remi': [
        89.0272, 32.0396, -7.5534, -124.0175, 46.4072, 12.5899,
        24.9462, -6.4056, 22.9567, -25.5106, 4.0827, 97.378,
        -116.4264, -13.4731, -31.1978, 0.4884, 0.0, -36.5642,
        61.6571, -14.113, 0.0, 0.0, -63.8982, 0.0,
    ],
    'remi101': [
        17.0408, 18.9367, 39.6492, -50.1155, 89.1777, -33.75,
        29.3318, -13.1857, 0.9061, -24.3414, 95.5372, 66.7498,
        -130.7449, -95.0307, -40.6729, -14.4338, -41.1039, -54.9716,
        -4.4107, -10.0378, 0.0, -0.0, -1.2765, -6.8837,
    ],
}
