"""Lhotse: a tiny speech corpus of the user's (``corpus/``: 16 kHz WAV files of two speakers
and a ``transcripts.txt``) prepared the way Lhotse recipes and icefall's ``prepare.sh`` do.
``prepare.py`` writes the recording and supervision manifests per split
(``data/manifests/minispeech_{recordings,supervisions}_{train,dev}.jsonl.gz``);
``compute_fbank.py`` builds the cut sets, adds speed-perturbed copies (0.9 and 1.1) to the
training cuts, extracts log-Mel filterbank features with ``compute_and_store_features``
(``Fbank``, ``LilcomChunkyWriter``, into ``data/fbank/minispeech_feats_<split>/``) and saves
the cut manifests ``data/fbank/minispeech_cuts_<split>.jsonl.gz``.

    python3.11 -m venv /tmp/h8/lhotse/venv
    /tmp/h8/lhotse/venv/bin/pip install torch==2.13.0 lhotse urllib3 lilcom
    /tmp/h8/lhotse/venv/bin/python tests/corpus/heldout8/lhotse/make_fixtures.py

(lhotse 1.33 imports urllib3 without requiring it, and its default feature storage needs
lilcom.) ``python prepare.py``, then ``python compute_fbank.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

PREPARE = '''"""Make Lhotse manifests for the minispeech corpus: python prepare.py"""
from pathlib import Path

from lhotse import Recording, RecordingSet, SupervisionSegment, SupervisionSet
from lhotse.qa import fix_manifests, validate_recordings_and_supervisions

CORPUS = Path("corpus")
OUT = Path("data/manifests")
OUT.mkdir(parents=True, exist_ok=True)
texts = dict(line.split(" ", 1) for line in (CORPUS / "transcripts.txt").read_text().splitlines())
splits = {"train": "spk1", "dev": "spk2"}

for split, speaker in splits.items():
    recordings = RecordingSet.from_recordings(
        Recording.from_file(path, recording_id=path.stem)
        for path in sorted((CORPUS / "wav" / speaker).glob("*.wav")))
    supervisions = SupervisionSet.from_segments(
        SupervisionSegment(id=rec.id, recording_id=rec.id, start=0.0, duration=rec.duration,
                           channel=0, text=texts[rec.id].strip(), speaker=speaker,
                           language="English")
        for rec in recordings)
    recordings, supervisions = fix_manifests(recordings, supervisions)
    validate_recordings_and_supervisions(recordings, supervisions)
    recordings.to_file(OUT / f"minispeech_recordings_{split}.jsonl.gz")
    supervisions.to_file(OUT / f"minispeech_supervisions_{split}.jsonl.gz")
    print(split, len(recordings), "recordings")
'''

COMPUTE = '''"""Compute fbank features for minispeech: python compute_fbank.py"""
from pathlib import Path

from lhotse import CutSet, Fbank, FbankConfig, LilcomChunkyWriter, load_manifest_lazy

SRC = Path("data/manifests")
OUT = Path("data/fbank")
OUT.mkdir(parents=True, exist_ok=True)
extractor = Fbank(FbankConfig(num_mel_bins=40))

for split in ("train", "dev"):
    cuts = CutSet.from_manifests(
        recordings=load_manifest_lazy(SRC / f"minispeech_recordings_{split}.jsonl.gz"),
        supervisions=load_manifest_lazy(SRC / f"minispeech_supervisions_{split}.jsonl.gz"))
    if split == "train":
        cuts = cuts + cuts.perturb_speed(0.9) + cuts.perturb_speed(1.1)
    cuts = cuts.compute_and_store_features(
        extractor=extractor, storage_path=OUT / f"minispeech_feats_{split}", num_jobs=1,
        storage_type=LilcomChunkyWriter, progress_bar=False)
    cuts.to_file(OUT / f"minispeech_cuts_{split}.jsonl.gz")
    print(split, len(cuts), "cuts with features")
'''

WORDS = ["yes", "no", "up", "down", "left", "right", "stop", "go"]


def _corpus() -> None:
    import numpy as np
    import soundfile as sf

    rng = np.random.default_rng(0)
    lines = []
    for s, speaker in enumerate(("spk1", "spk2")):
        folder = Path("corpus/wav") / speaker
        folder.mkdir(parents=True)
        for u in range(4):
            utt = f"{speaker}_utt{u:02d}"
            seconds = 0.8 + 0.1 * u
            t = np.arange(int(16000 * seconds)) / 16000
            pitch = 120.0 + 80 * s + 15 * u
            voice = sum(np.sin(2 * np.pi * pitch * k * t) / k for k in range(1, 5))
            envelope = np.sin(np.pi * t / seconds) ** 2
            audio = 0.2 * voice * envelope + 0.01 * rng.normal(size=t.size)
            sf.write(folder / f"{utt}.wav", audio.astype(np.float32), 16000, subtype="PCM_16")
            lines.append(f"{utt} {WORDS[(u + 3 * s) % 8]} {WORDS[(2 * u + s) % 8]}")
    Path("corpus/transcripts.txt").write_text("\n".join(lines) + "\n")


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    assert done.returncode == 0, done.returncode
    return done.stdout


def run(work: Path) -> list[dict[str, object]]:
    _corpus()
    Path("prepare.py").write_text(PREPARE)
    Path("compute_fbank.py").write_text(COMPUTE)
    assert "train 4 recordings" in _run("prepare.py")
    out = _run("compute_fbank.py")
    assert "train 12 cuts with features" in out and "dev 4 cuts with features" in out, out
    return [{
        "run": "python prepare.py; python compute_fbank.py", "best": None, "latest": None,
        "evidence": "Lhotse prepares data only: the scripts printed the manifest and cut "
                    "counts ('train 12 cuts with features', 'dev 4 cuts with features'); no "
                    "model is trained and no checkpoint is written"}]


def label(path: str) -> str:
    if path.startswith("corpus/"):
        return "dataset"
    if path.startswith("data/"):
        return "augmented"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "lhotse", tool="lhotse",
           kind="speech data preparation (manifests, cut sets, feature storage)",
           command="python prepare.py; python compute_fbank.py (prepare.py: RecordingSet and "
                   "SupervisionSet per split to data/manifests/minispeech_*_{train,dev}."
                   "jsonl.gz; compute_fbank.py: CutSet.from_manifests, train + "
                   "perturb_speed(0.9) + perturb_speed(1.1), compute_and_store_features(Fbank "
                   "40 mel, LilcomChunkyWriter, data/fbank/minispeech_feats_<split>), "
                   "to_file data/fbank/minispeech_cuts_<split>.jsonl.gz)")
