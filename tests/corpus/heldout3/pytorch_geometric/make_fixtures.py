"""PyTorch Geometric: Planetoid's Cora citation graph under ``data/`` (``raw/`` as
downloaded, ``processed/`` as PyG builds it), and a two-layer GCN trained on it for 200
epochs on CPU, as PyG's ``examples/gcn.py`` does, saving a checkpoint every 40 epochs and
the best by validation accuracy.

    /work/venvs/tools-b/bin/pip install torch==2.13.0 torch_geometric
    PLANETOID_RAW=/path/to/planetoid/data /work/venvs/tools-b/bin/python \
        tests/corpus/heldout3/pytorch_geometric/make_fixtures.py

``Planetoid(root="data", name="Cora")`` downloads the eight ``ind.cora.*`` files of
kimiyoung/planetoid's ``data/`` folder into ``data/Cora/raw/``, then writes
``data/Cora/processed/`` (``data.pt``, ``pre_transform.pt``, ``pre_filter.pt``). This machine
reaches no data host, so the script first copies those same eight files from a clone of that
repository (``PLANETOID_RAW``) into ``data/Cora/raw/``; Planetoid finds them and only
processes. The user's loop saves ``checkpoints/gcn_epoch_<N>.pt`` (model and optimizer
state) every 40 epochs and ``checkpoints/gcn_best.pt`` whenever validation accuracy improves.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from capture import record  # noqa: E402

RAW = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def run(work: Path) -> list[dict[str, object]]:
    import torch
    import torch.nn.functional as F
    import torch_geometric.transforms as T
    from torch_geometric.datasets import Planetoid
    from torch_geometric.nn import GCNConv

    raw = work / "data" / "Cora" / "raw"
    raw.mkdir(parents=True)
    for name in RAW:
        shutil.copy(Path(os.environ["PLANETOID_RAW"]) / f"ind.cora.{name}", raw)
    dataset = Planetoid(root="data", name="Cora", transform=T.NormalizeFeatures())
    data = dataset[0]

    class GCN(torch.nn.Module):
        def __init__(self, channels: int, hidden: int, classes: int) -> None:
            super().__init__()
            self.conv1 = GCNConv(channels, hidden)
            self.conv2 = GCNConv(hidden, classes)

        def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
            x = F.dropout(x, p=0.5, training=self.training)
            x = F.relu(self.conv1(x, edge_index))
            x = F.dropout(x, p=0.5, training=self.training)
            return self.conv2(x, edge_index)

    torch.manual_seed(0)
    model = GCN(dataset.num_features, 16, dataset.num_classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    Path("checkpoints").mkdir()
    best_acc, best_epoch = -1.0, 0
    for epoch in range(1, 201):
        model.train()
        optimizer.zero_grad()
        out = model(data.x, data.edge_index)
        F.cross_entropy(out[data.train_mask], data.y[data.train_mask]).backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            pred = model(data.x, data.edge_index).argmax(dim=-1)
        val_acc = float((pred[data.val_mask] == data.y[data.val_mask]).float().mean())
        state = {"epoch": epoch, "model": model.state_dict(),
                 "optimizer": optimizer.state_dict(), "val_acc": val_acc}
        if val_acc > best_acc:
            best_acc, best_epoch = val_acc, epoch
            torch.save(state, "checkpoints/gcn_best.pt")
        if epoch % 40 == 0:
            torch.save(state, f"checkpoints/gcn_epoch_{epoch}.pt")
    return [{"run": "checkpoints", "best": "checkpoints/gcn_best.pt",
             "latest": "checkpoints/gcn_epoch_200.pt",
             "evidence": f"gcn_best.pt last saved at epoch {best_epoch} (val_acc "
                         f"{best_acc:.3f}, the 'val_acc' it holds); the last periodic save is "
                         f"epoch 200"}]


def label(path: str) -> str:
    if "/raw/" in path:
        return "dataset"
    return "cache" if "/processed/" in path else "checkpoint"


if __name__ == "__main__":
    record(Path(__file__).resolve().parent, run, label, "torch_geometric",
           tool="PyTorch Geometric", kind="graph learning (PyTorch)",
           command="Planetoid(root='data', name='Cora'); GCN 200 epochs, torch.save every 40 "
                   "epochs and the best by val accuracy into checkpoints/")
