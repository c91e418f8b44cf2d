"""SpeechBrain: a tiny recipe in the layout of SpeechBrain's templates (``train.py``,
``hparams/train.yaml`` in HyperPyYAML, a ``tone_prepare.py`` data-preparation script), a
``speechbrain.Brain`` subclass that classifies toy tone clips (the user's ``data/wavs/*.wav``,
8 kHz, 0.25 s, three pitch classes), CPU, trained twice with two seeds.

    python3.11 -m venv /tmp/h5/speechbrain/venv
    /tmp/h5/speechbrain/venv/bin/pip install torch==2.13.0   # the machine's CPU wheel
    /tmp/h5/speechbrain/venv/bin/pip install --no-deps torchaudio==2.11.1
    # torchaudio's CUDA-built extension cannot load on CPU torch: moved its lib/*.so away
    /tmp/h5/speechbrain/venv/bin/pip install speechbrain   # 1.1.2 (and its other deps)
    /tmp/h5/speechbrain/venv/bin/python tests/corpus/heldout5/speechbrain/make_fixtures.py

``python train.py hparams/train.yaml --seed <seed>`` for seeds 1986 and 2024:
``sb.create_experiment_directory`` makes ``results/tone_classifier/<seed>/`` (``log.txt``,
``env.log``, the resolved ``hyperparams.yaml``, a copy of ``train.py``); the prepare step
writes the ``train/valid/test.json`` manifests there; a ``CategoricalEncoder`` saves
``save/label_encoder.txt``; ``Brain.fit`` over 8 epochs logs each epoch to
``train_log.txt`` (``FileTrainLogger``) and, after each validation,
``checkpointer.save_and_keep_only(meta=valid_stats, min_keys=['error'])`` writes a
``save/CKPT+<time>+00/`` folder (``CKPT.yaml``, ``model.ckpt``, ``normalizer.ckpt``,
``counter.ckpt``, ``brain.ckpt``) and deletes all but the newest and the lowest-error one;
then ``Brain.evaluate(test, min_key='error')`` loads the best. No pretrained model is
downloaded.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

HPARAMS = """# Tone classifier: Fbank features, a small MLP, statistics pooling
seed: 1986
__set_seed: !apply:speechbrain.utils.seed.seed_everything [!ref <seed>]

data_folder: data
output_folder: !ref results/tone_classifier/<seed>
save_folder: !ref <output_folder>/save
train_log: !ref <output_folder>/train_log.txt
train_annotation: !ref <output_folder>/train.json
valid_annotation: !ref <output_folder>/valid.json
test_annotation: !ref <output_folder>/test.json

number_of_epochs: 8
batch_size: 8
lr: 0.03
sample_rate: 8000
n_mels: 24
n_classes: 3
dataloader_options:
    batch_size: !ref <batch_size>
    shuffle: True

compute_features: !new:speechbrain.lobes.features.Fbank
    sample_rate: !ref <sample_rate>
    n_fft: 256
    n_mels: !ref <n_mels>

mean_var_norm: !new:speechbrain.processing.features.InputNormalization
    norm_type: sentence
    std_norm: False

encoder: !new:speechbrain.nnet.containers.Sequential
    input_shape: [null, null, !ref <n_mels>]
    lin1: !name:speechbrain.nnet.linear.Linear
        n_neurons: 64
    act1: !new:torch.nn.LeakyReLU
    lin2: !name:speechbrain.nnet.linear.Linear
        n_neurons: 64
    act2: !new:torch.nn.LeakyReLU

pooling: !new:speechbrain.nnet.pooling.StatisticsPooling

classifier: !new:speechbrain.nnet.linear.Linear
    input_size: 128
    n_neurons: !ref <n_classes>

log_softmax: !new:speechbrain.nnet.activations.Softmax
    apply_log: True

model: !new:torch.nn.ModuleList
    - [!ref <encoder>, !ref <classifier>]

modules:
    compute_features: !ref <compute_features>
    mean_var_norm: !ref <mean_var_norm>
    encoder: !ref <encoder>
    pooling: !ref <pooling>
    classifier: !ref <classifier>
    log_softmax: !ref <log_softmax>

compute_cost: !name:speechbrain.nnet.losses.nll_loss

error_stats: !name:speechbrain.utils.metric_stats.MetricStats
    metric: !name:speechbrain.nnet.losses.classification_error
        reduction: batch

opt_class: !name:torch.optim.Adam
    lr: !ref <lr>

lr_annealing: !new:speechbrain.nnet.schedulers.LinearScheduler
    initial_value: !ref <lr>
    final_value: 0.001
    epoch_count: !ref <number_of_epochs>

epoch_counter: !new:speechbrain.utils.epoch_loop.EpochCounter
    limit: !ref <number_of_epochs>

train_logger: !new:speechbrain.utils.train_logger.FileTrainLogger
    save_file: !ref <train_log>

checkpointer: !new:speechbrain.utils.checkpoints.Checkpointer
    checkpoints_dir: !ref <save_folder>
    recoverables:
        model: !ref <model>
        normalizer: !ref <mean_var_norm>
        counter: !ref <epoch_counter>
"""

PREPARE = '''"""Write the JSON manifests SpeechBrain's datasets read (recipe-style data prep)."""
import json
import logging
import os

import soundfile as sf

logger = logging.getLogger(__name__)


def prepare_tones(data_folder, save_json_train, save_json_valid, save_json_test):
    if all(os.path.exists(p) for p in (save_json_train, save_json_valid, save_json_test)):
        logger.info("Preparation completed in previous run, skipping.")
        return
    wavs = sorted(os.listdir(os.path.join(data_folder, "wavs")))
    splits = {save_json_train: [], save_json_valid: [], save_json_test: []}
    for i, name in enumerate(wavs):
        path = os.path.join(data_folder, "wavs", name)
        entry = (name[:-4], {"wav": path, "length": sf.info(path).duration,
                             "tone": name.split("_")[0]})
        target = [save_json_train] * 6 + [save_json_valid, save_json_test]
        splits[target[i % 8]].append(entry)
    for path, entries in splits.items():
        with open(path, "w") as f:
            json.dump(dict(entries), f, indent=2)
        logger.info(f"{path} successfully created!")
'''

TRAIN = '''#!/usr/bin/env python3
"""Recipe for training a tone classifier with SpeechBrain.

python train.py hparams/train.yaml --seed 1986
"""
import os
import sys

import torch
from hyperpyyaml import load_hyperpyyaml

import speechbrain as sb
from tone_prepare import prepare_tones


class ToneBrain(sb.Brain):
    def compute_forward(self, batch, stage):
        batch = batch.to(self.device)
        wavs, lens = batch.sig
        feats = self.modules.compute_features(wavs)
        feats = self.modules.mean_var_norm(feats, lens)
        embeddings = self.modules.encoder(feats)
        pooled = self.modules.pooling(embeddings, lens)
        logits = self.modules.classifier(pooled)
        return self.modules.log_softmax(logits)

    def compute_objectives(self, predictions, batch, stage):
        _, lens = batch.sig
        tone, _ = batch.tone_encoded
        loss = self.hparams.compute_cost(predictions, tone, lens)
        if stage != sb.Stage.TRAIN:
            self.error_metrics.append(batch.id, predictions, tone, lens)
        return loss

    def on_stage_start(self, stage, epoch=None):
        if stage != sb.Stage.TRAIN:
            self.error_metrics = self.hparams.error_stats()

    def on_stage_end(self, stage, stage_loss, epoch=None):
        if stage == sb.Stage.TRAIN:
            self.train_loss = stage_loss
            return
        stats = {"loss": stage_loss, "error": self.error_metrics.summarize("average")}
        if stage == sb.Stage.VALID:
            old_lr, new_lr = self.hparams.lr_annealing(epoch)
            sb.nnet.schedulers.update_learning_rate(self.optimizer, new_lr)
            self.hparams.train_logger.log_stats(
                stats_meta={"epoch": epoch, "lr": old_lr},
                train_stats={"loss": self.train_loss},
                valid_stats=stats,
            )
            self.checkpointer.save_and_keep_only(meta=stats, min_keys=["error"])
        if stage == sb.Stage.TEST:
            self.hparams.train_logger.log_stats(
                {"Epoch loaded": self.hparams.epoch_counter.current}, test_stats=stats)


def dataio_prep(hparams):
    label_encoder = sb.dataio.encoder.CategoricalEncoder()

    @sb.utils.data_pipeline.takes("wav")
    @sb.utils.data_pipeline.provides("sig")
    def audio_pipeline(wav):
        return sb.dataio.dataio.read_audio(wav)

    @sb.utils.data_pipeline.takes("tone")
    @sb.utils.data_pipeline.provides("tone", "tone_encoded")
    def label_pipeline(tone):
        yield tone
        yield label_encoder.encode_label_torch(tone)

    datasets = {}
    for split in ("train", "valid", "test"):
        datasets[split] = sb.dataio.dataset.DynamicItemDataset.from_json(
            json_path=hparams[f"{split}_annotation"],
            replacements={"data_root": hparams["data_folder"]},
            dynamic_items=[audio_pipeline, label_pipeline],
            output_keys=["id", "sig", "tone_encoded"],
        )
    label_encoder.load_or_create(
        path=os.path.join(hparams["save_folder"], "label_encoder.txt"),
        from_didatasets=[datasets["train"]],
        output_key="tone",
    )
    return datasets


if __name__ == "__main__":
    hparams_file, run_opts, overrides = sb.parse_arguments(sys.argv[1:])
    with open(hparams_file, encoding="utf-8") as fin:
        hparams = load_hyperpyyaml(fin, overrides)
    sb.create_experiment_directory(
        experiment_directory=hparams["output_folder"],
        hyperparams_to_save=hparams_file,
        overrides=overrides,
    )
    sb.utils.distributed.run_on_main(
        prepare_tones,
        kwargs={
            "data_folder": hparams["data_folder"],
            "save_json_train": hparams["train_annotation"],
            "save_json_valid": hparams["valid_annotation"],
            "save_json_test": hparams["test_annotation"],
        },
    )
    datasets = dataio_prep(hparams)
    brain = ToneBrain(
        modules=hparams["modules"],
        opt_class=hparams["opt_class"],
        hparams=hparams,
        run_opts=run_opts,
        checkpointer=hparams["checkpointer"],
    )
    brain.fit(
        epoch_counter=brain.hparams.epoch_counter,
        train_set=datasets["train"],
        valid_set=datasets["valid"],
        train_loader_kwargs=hparams["dataloader_options"],
        valid_loader_kwargs=hparams["dataloader_options"],
    )
    best = brain.checkpointer.find_checkpoint(min_key="error")
    latest = brain.checkpointer.find_checkpoint()
    print("best checkpoint:", best.path, best.meta)
    print("latest checkpoint:", latest.path, latest.meta)
    brain.evaluate(
        test_set=datasets["test"],
        min_key="error",
        test_loader_kwargs=hparams["dataloader_options"],
    )
'''


def _tones(folder: Path) -> None:
    import numpy as np
    import soundfile as sf

    rng = np.random.default_rng(0)
    folder.mkdir(parents=True)
    t = np.arange(2000) / 8000
    for i in range(96):
        tone, hz = [("low", 400.0), ("mid", 440.0), ("high", 480.0)][i % 3]
        wave = 0.4 * np.sin(2 * np.pi * (hz + rng.normal(0, 25)) * t + rng.uniform(0, 6.28))
        wave += rng.normal(0, 0.3, size=t.size)
        sf.write(folder / f"{tone}_{i:03d}.wav", wave.astype(np.float32), 8000,
                 subtype="PCM_16")


def run(work: Path) -> list[dict[str, object]]:
    _tones(Path("data/wavs"))
    Path("hparams").mkdir()
    Path("hparams/train.yaml").write_text(HPARAMS)
    Path("tone_prepare.py").write_text(PREPARE)
    Path("train.py").write_text(TRAIN)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    checkpoints = []
    for seed in ("1986", "2024"):
        command = [sys.executable, "train.py", "hparams/train.yaml", "--seed", seed,
                   "--device", "cpu"]
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        sys.stderr.write(done.stdout + done.stderr)
        done.check_returncode()
        found = {}
        for role in ("best", "latest"):
            match = re.search(rf"^{role} checkpoint: (\S+) ", done.stdout, re.M)
            assert match, done.stdout
            found[role] = match.group(1)
        log = Path(f"results/tone_classifier/{seed}/log.txt").read_text()
        loaded = re.findall(r"Loading a checkpoint from (\S+)", log)
        assert loaded and Path(loaded[-1]).resolve() == (work / found["best"]).resolve(), loaded
        checkpoints.append({
            "run": f"python train.py hparams/train.yaml --seed {seed}",
            "best": found["best"], "latest": found["latest"],
            "evidence": "the recipe printed Checkpointer.find_checkpoint(min_key='error') "
                        "(best, lowest validation error in its CKPT.yaml meta) and "
                        "find_checkpoint() (latest, newest unixtime); "
                        f"Brain.evaluate(min_key='error') logged 'Loading a checkpoint from "
                        f"{found['best']}' in log.txt; save_and_keep_only kept only these"})
    return checkpoints


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if "/save/" in path:  # CKPT+<time>+00/ folders and the label encoder beside them
        return "checkpoint"
    if path.startswith("results/"):
        if path.endswith(("/train.json", "/valid.json", "/test.json")):
            return "augmented"
        return "log"
    if "__pycache__/" in path:
        return "cache"
    return "other"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "speechbrain", tool="speechbrain",
           kind="speech toolkit recipe (speechbrain.Brain, Checkpointer, FileTrainLogger)",
           command="python train.py hparams/train.yaml --seed 1986; the same with --seed 2024 "
                   "(Brain.fit over 8 epochs, checkpointer.save_and_keep_only(meta=stats, "
                   "min_keys=['error']) after each validation, Brain.evaluate(min_key='error'))")
