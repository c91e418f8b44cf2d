"""MONAI: a small 2D UNet segmenting synthetic images, CPU, 6 epochs, trained with MONAI's
``SupervisedTrainer`` and validated by a ``SupervisedEvaluator`` with the handlers of its
``unet_training_workflows`` tutorial, reading the data through a ``PersistentDataset``.

    /work/venvs/tools-a/bin/pip install torch==2.13.0 monai pytorch-ignite nibabel tensorboard
    /work/venvs/tools-a/bin/python tests/corpus/heldout4/monai/make_fixtures.py

As the tutorial does, the user first writes 40 synthetic image/segmentation pairs
(``create_test_image_2d``) as NIfTI files under ``data/``; ``PersistentDataset(...,
cache_dir="persistent_cache")`` stores each item after its deterministic transforms (load,
channel first, scale) as a ``<hash>.pt`` file. The trainer's handlers: ``StatsHandler``,
``TensorBoardStatsHandler(log_dir="runs/")``, ``ValidationHandler(validator, interval=1)`` and
``CheckpointSaver(save_dir="runs/", save_dict={"net", "opt"}, save_interval=2,
save_final=True)``; the evaluator's: ``StatsHandler``, ``TensorBoardStatsHandler``, and
``CheckpointSaver(save_dir="runs/", save_dict={"net"}, save_key_metric=True,
key_metric_n_saved=2)`` on its key metric ``val_mean_dice``. Python logging goes to
``runs/train.log``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402


def run(work: Path) -> list[dict[str, object]]:
    import nibabel as nib
    import numpy as np
    import torch
    from ignite.metrics import Accuracy
    from monai.data import DataLoader, PersistentDataset, create_test_image_2d
    from monai.engines import SupervisedEvaluator, SupervisedTrainer
    from monai.handlers import (
        CheckpointSaver,
        MeanDice,
        StatsHandler,
        TensorBoardStatsHandler,
        ValidationHandler,
        from_engine,
    )
    from monai.inferers import SimpleInferer
    from monai.losses import DiceLoss
    from monai.networks.nets import UNet
    from monai.transforms import (
        Activationsd,
        AsDiscreted,
        Compose,
        EnsureChannelFirstd,
        LoadImaged,
        RandRotate90d,
        ScaleIntensityd,
    )
    from monai.utils import set_determinism

    Path("runs").mkdir()
    logging.basicConfig(filename="runs/train.log", level=logging.INFO, force=True)
    set_determinism(seed=0)
    Path("data").mkdir()
    files = []
    for i in range(40):
        im, seg = create_test_image_2d(64, 64, num_seg_classes=1, channel_dim=-1,
                                       random_state=np.random.RandomState(i))
        nib.save(nib.Nifti1Image(im, np.eye(4)), f"data/img{i:d}.nii.gz")
        nib.save(nib.Nifti1Image(seg, np.eye(4)), f"data/seg{i:d}.nii.gz")
        files.append({"image": f"data/img{i:d}.nii.gz", "label": f"data/seg{i:d}.nii.gz"})

    base = [LoadImaged(keys=["image", "label"]),
            EnsureChannelFirstd(keys=["image", "label"], channel_dim=-1),
            ScaleIntensityd(keys="image")]
    train_ds = PersistentDataset(files[:32], Compose(
        base + [RandRotate90d(keys=["image", "label"], prob=0.5, spatial_axes=[0, 1])]),
        cache_dir="persistent_cache")
    val_ds = PersistentDataset(files[32:], Compose(base), cache_dir="persistent_cache")
    train_loader = DataLoader(train_ds, batch_size=4, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=4)

    device = torch.device("cpu")
    net = UNet(spatial_dims=2, in_channels=1, out_channels=1, channels=(8, 16, 32),
               strides=(2, 2), num_res_units=1)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    post = Compose([Activationsd(keys="pred", sigmoid=True),
                    AsDiscreted(keys="pred", threshold=0.5)])
    best = CheckpointSaver(save_dir="runs/", save_dict={"net": net}, save_key_metric=True,
                           key_metric_n_saved=2)
    evaluator = SupervisedEvaluator(
        device=device, val_data_loader=val_loader, network=net, inferer=SimpleInferer(),
        postprocessing=post,
        key_val_metric={"val_mean_dice": MeanDice(
            include_background=True, output_transform=from_engine(["pred", "label"]))},
        additional_metrics={"val_acc": Accuracy(
            output_transform=from_engine(["pred", "label"]))},
        val_handlers=[StatsHandler(iteration_log=False, output_transform=lambda x: None),
                      TensorBoardStatsHandler(log_dir="runs/", iteration_log=False,
                                              output_transform=lambda x: None),
                      best])
    periodic = CheckpointSaver(save_dir="runs/", save_dict={"net": net, "opt": opt},
                               save_interval=2, save_final=True)
    trainer = SupervisedTrainer(
        device=device, max_epochs=6, train_data_loader=train_loader, network=net,
        optimizer=opt, loss_function=DiceLoss(sigmoid=True), inferer=SimpleInferer(),
        train_handlers=[ValidationHandler(validator=evaluator, interval=1, epoch_level=True),
                        StatsHandler(tag_name="train_loss",
                                     output_transform=from_engine(["loss"], first=True)),
                        TensorBoardStatsHandler(log_dir="runs/", tag_name="train_loss",
                                                output_transform=from_engine(["loss"],
                                                                             first=True)),
                        periodic])
    trainer.run()
    logging.shutdown()

    def rel(path: object) -> str:
        return Path(str(path)).resolve().relative_to(work.resolve()).as_posix()

    best_file = rel(best._key_metric_checkpoint.last_checkpoint)
    final_file = rel(periodic._final_checkpoint.last_checkpoint)
    return [{"run": "runs", "best": best_file, "latest": final_file,
             "evidence": f"the evaluator's key-metric CheckpointSaver's last_checkpoint is "
                         f"{best_file} (best val_mean_dice {evaluator.state.best_metric:.4f} "
                         f"at epoch {evaluator.state.best_metric_epoch}); the trainer's "
                         f"saver logged 'Train completed, saved final checkpoint: "
                         f"{final_file}'"}]


def label(path: str) -> str:
    if path.startswith("data/"):
        return "dataset"
    if path.startswith("persistent_cache/"):
        return "cache"
    return "checkpoint" if path.endswith((".pt", ".pth")) else "log"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "monai", tool="MONAI",
           kind="medical imaging (PyTorch, Ignite)",
           command="SupervisedTrainer(max_epochs=6, train_data_loader=DataLoader("
                   "PersistentDataset(files, cache_dir='persistent_cache')), train_handlers="
                   "[ValidationHandler(evaluator), StatsHandler, TensorBoardStatsHandler('runs/'),"
                   " CheckpointSaver('runs/', save_interval=2, save_final=True)]); evaluator "
                   "val_handlers=[CheckpointSaver('runs/', save_key_metric=True, "
                   "key_metric_n_saved=2)]")
