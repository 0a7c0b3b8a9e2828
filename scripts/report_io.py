"""What the report scripts share: one-line refusals, reading JSON, writing a file atomically, tables.

Used by adi_report.py, fwi_report.py and energy_report.py (each passes its own name for the messages).
"""
import json
import lzma
import os
import sys
import tempfile


def fail(program, msg):
    print(f"{program}: {msg}", file=sys.stderr)
    sys.exit(2)


def load(program, path):
    """A JSON file, or its .xz (results/ stores large measurements compressed)."""
    try:
        with (lzma.open(path, "rt", encoding="utf-8") if path.endswith(".xz") else open(path)) as f:
            return json.load(f)
    except lzma.LZMAError as e:
        fail(program, f"{path}: not a valid .xz file ({e})")
    except OSError as e:
        fail(program, f"{path}: cannot read ({e.strerror})")
    except json.JSONDecodeError as e:
        fail(program, f"{path}: not valid JSON ({e})")


def write_atomically(path, text):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(path))
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _positive_number(device, *paths):
    """The first positive number at one of the key paths of a device profile, else None."""
    for keys in paths:
        value = device
        for k in keys:
            value = value.get(k) if isinstance(value, dict) else None
        if isinstance(value, (int, float)) and value > 0:
            return float(value)
    return None


def static_watts(program, path, device):
    """The device profile's static power (E.1's P_static), as predict-app reads it: `energy.static_w`,
    else characterize's `measurements.energy.coefficients.static_w`."""
    value = _positive_number(device, ("energy", "static_w"), ("measurements", "energy", "coefficients", "static_w"))
    if value is None:
        fail(program, f"{path}: no static power (field 'energy.static_w' or 'measurements.energy.coefficients.static_w')")
    return value


def power_limit_watts(device):
    """The board's power limit the device profile records (E.3's P_limit), as predict-app reads it:
    `energy.power_limit_w`, else `measurements.energy.board.power_limit_w`; None when absent (no cap)."""
    return _positive_number(device, ("energy", "power_limit_w"), ("measurements", "energy", "board", "power_limit_w"))


def dynamic_joules(row, static_w):
    """E.1's dynamic energy of a predict-app row (J): its `predicted_dynamic_energy_mj`, else (rows
    written before E.3) its energy less the static power over its predicted time; None without one."""
    if row.get("predicted_dynamic_energy_mj") is not None:
        return row["predicted_dynamic_energy_mj"] / 1000
    mj, us = row.get("predicted_energy_mj"), row.get("predicted_us")
    if mj is None or us is None or static_w is None:
        return None
    return mj / 1000 - static_w * us * 1e-6


def energy_at(seconds, static_w, dynamic_j, limit_w=None):
    """E.1 at a measured time (the static power over it plus the dynamic energy), capped by E.3 at the
    power limit times that time where the limit is known."""
    e = static_w * seconds + dynamic_j
    return min(e, limit_w * seconds) if limit_w else e


def pct_error(predicted, measured):
    """100 (predicted / measured - 1), None without a prediction."""
    return 100 * (predicted / measured - 1) if predicted is not None else None


def summary(errors):
    """(MAPE, mean signed error, the worst (error, name), how many under-predicted) over [(error %, name), ...]."""
    return (sum(abs(e) for e, _ in errors) / len(errors), sum(e for e, _ in errors) / len(errors),
            max(errors, key=lambda x: abs(x[0])), sum(1 for e, _ in errors if e < 0))
