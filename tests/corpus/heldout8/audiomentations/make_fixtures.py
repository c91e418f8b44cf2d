"""audiomentations: the user's ``augment.py`` writes augmented copies of the user's sound
clips beside the originals (``data/clips/<name>.wav`` -> ``data/clips/<name>_aug<k>.wav``),
with an ``audiomentations.Compose`` of Gaussian noise, background noise from the user's
``data/noise/`` recordings, time stretch, pitch shift, shift and gain, as the library's
README shows; the files are read and written with soundfile.

    python3.11 -m venv /tmp/h8/audiomentations/venv
    /tmp/h8/audiomentations/venv/bin/pip install audiomentations soundfile
    /tmp/h8/audiomentations/venv/bin/python tests/corpus/heldout8/audiomentations/make_fixtures.py

``python augment.py 2``: two augmented copies of each of the six clips.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

AUGMENT = '''"""Write augmented copies of every clip beside it: python augment.py COPIES"""
import sys
from pathlib import Path

import numpy as np
import soundfile as sf
from audiomentations import (AddBackgroundNoise, AddGaussianNoise, Compose, Gain, PitchShift,
                             Shift, TimeStretch)

copies = int(sys.argv[1])
augment = Compose([
    AddGaussianNoise(min_amplitude=0.001, max_amplitude=0.01, p=0.5),
    AddBackgroundNoise(sounds_path="data/noise", min_snr_db=5.0, max_snr_db=20.0, p=0.5),
    TimeStretch(min_rate=0.85, max_rate=1.15, p=0.5),
    PitchShift(min_semitones=-3, max_semitones=3, p=0.5),
    Shift(min_shift=-0.2, max_shift=0.2, p=0.5),
    Gain(min_gain_db=-6, max_gain_db=6, p=0.5),
])
np.random.seed(0)
originals = sorted(p for p in Path("data/clips").glob("*.wav") if "_aug" not in p.stem)
for path in originals:
    samples, rate = sf.read(path, dtype="float32")
    for k in range(copies):
        out = path.with_name(f"{path.stem}_aug{k}.wav")
        sf.write(out, augment(samples=samples, sample_rate=rate), rate, subtype="PCM_16")
        print("wrote", out)
'''


def _clips() -> None:
    import numpy as np
    import soundfile as sf

    rng = np.random.default_rng(0)
    rate = 16000
    Path("data/clips").mkdir(parents=True)
    Path("data/noise").mkdir()
    for kind, base in (("bark", 300.0), ("chirp", 2500.0), ("horn", 440.0)):
        for i in range(2):
            t = np.arange(int(rate * (0.5 + 0.2 * i))) / rate
            freq = base * (1 + 0.3 * t) if kind == "chirp" else base + 20 * i
            tone = np.sin(2 * np.pi * freq * t) * np.exp(-3 * t) * 0.5
            sf.write(f"data/clips/{kind}_{i:02d}.wav", tone.astype(np.float32), rate,
                     subtype="PCM_16")
    for name in ("street", "cafe"):
        noise = rng.normal(0, 0.1, size=rate).astype(np.float32)
        sf.write(f"data/noise/{name}.wav", noise, rate, subtype="PCM_16")


def run(work: Path) -> list[dict[str, object]]:
    _clips()
    Path("augment.py").write_text(AUGMENT)
    done = subprocess.run([sys.executable, "augment.py", "2"], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    wrote = [x.split()[1] for x in done.stdout.splitlines() if x.startswith("wrote ")]
    assert len(wrote) == 12 and all(Path(p).exists() for p in wrote), wrote
    return [{
        "run": "python augment.py 2", "best": None, "latest": None,
        "evidence": f"augment.py printed 'wrote <path>' for {len(wrote)} augmented copies; "
                    f"audiomentations transforms audio and trains nothing, so there is no "
                    f"checkpoint"}]


def label(path: str) -> str:
    if path.startswith("data/clips/") and "_aug" in path:
        return "augmented"
    if path.startswith("data/"):
        return "dataset"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "audiomentations",
           tool="audiomentations", kind="audio data augmentation (user script)",
           command="python augment.py 2 (augment.py: Compose of AddGaussianNoise, "
                   "AddBackgroundNoise(sounds_path='data/noise'), TimeStretch, PitchShift, "
                   "Shift, Gain, each p=0.5; two copies of each data/clips/<name>.wav written "
                   "beside it as <name>_aug<k>.wav)")
