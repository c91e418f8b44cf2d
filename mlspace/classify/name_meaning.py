"""What the words of a checkpoint's name mean, whatever tool wrote it: the words that make it
the one to keep (best, last, latest, final, top-k) and the scores it carries
(``val_loss=0.43``, ``acc0.91``, ``neg_val_loss=-0.44``).

Why words and not each tool's patterns: a tool nobody wrote a rule for still names its best
save ``…_best.pth``, ``model-best/`` or ``final.pt``, and whoever reads such a name knows it
is not one more epoch to thin out. Words are read as tokens (split at separators and at a
lower-to-upper case change), so ``bestiary.pt`` or ``lastfm.pt`` protect nothing, and the
names of scores are taken out first, so ``top5_acc=0.9`` is a score, not a top-k.
"""

from __future__ import annotations

import re
from functools import lru_cache

from mlspace.classify.metrics import direction

_NUMBER = r"-?(?:\d+\.\d*|\.\d+|\d+)(?:e[-+]?\d+)?"
#: ``name=value`` (any value), and ``name<sep>value`` / ``namevalue`` where the value has a
#: decimal point (``acc0.91``, ``loss_0.43``): an integer after a word is an ordinal far more
#: often than a score (``epoch_3``, ``run-2``).
_WORD = r"[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z][A-Za-z0-9]*)*"
_ASSIGNED = re.compile(rf"(?<![A-Za-z0-9])({_WORD})=({_NUMBER}|nan|-?inf)", re.I)
_GLUED = re.compile(rf"(?<![A-Za-z0-9])({_WORD})[_\-:]?(-?\d+\.\d+(?:e[-+]?\d+)?)(?![\d.]*\d)",
                    re.I)
_NOT_SCORES = frozenset({"epoch", "step", "global_step", "iter", "iteration", "ep", "it", "v",
                         "version", "batch", "ba", "rank", "seed", "fold", "trial", "run"})
_TOKEN = re.compile(r"[A-Za-z]+|\d+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
#: Words that protect a checkpoint, and the role each gives. "top" takes a k after it
#: (``top1``, ``top_3``, ``topk``, ``top-k``).
_ROLE_WORDS = {"best": "best", "final": "final", "last": "last", "latest": "last"}


def scores_in(stem: str) -> tuple[tuple[str, float], ...]:
    """The scores a name's stem carries, as (metric, value), in order: every ``name=value``
    except steps and epochs, and a decimal value glued to a metric whose direction is known
    (``acc0.91``). A negated metric keeps its name and sign (``neg_val_loss``, -0.44): its
    direction says which way it improves (mlspace.classify.metrics)."""
    found: dict[str, float] = {}
    for key, value in _ASSIGNED.findall(stem):
        if key.lower() not in _NOT_SCORES:
            found.setdefault(key, float(value))
    if not found:
        for key, value in _GLUED.findall(stem):
            key = _metric_part(key.rsplit(".", 1)[-1])
            if key.lower() not in _NOT_SCORES and direction(key) is not None:
                found.setdefault(key, float(value))
    return tuple(found.items())


#: Words that belong to a metric's name before the metric itself (``val_loss``).
_QUALIFIERS = frozenset({"val", "valid", "validation", "eval", "test", "train", "neg", "mean",
                         "avg", "ep", "episode", "best"})


def _metric_part(key: str) -> str:
    """The metric in a word glued to a value: ``model_acc`` holds ``acc``; a qualifier stays
    (``val_loss``, ``neg_val_loss``)."""
    words = key.split("_")
    while len(words) > 1 and words[0].lower() not in _QUALIFIERS \
            and direction(words[0]) is None:
        words.pop(0)
    return "_".join(words)


def without_scores(stem: str) -> str:
    """``stem`` with the scores it carries blanked out (their names are no words of it)."""
    stem = _ASSIGNED.sub(" ", stem)
    return _GLUED.sub(lambda m: " " if direction(m.group(1)) else m.group(0), stem)


@lru_cache(maxsize=1 << 14)
def protected_role(name: str) -> str | None:
    """"best", "final", "last" or "top-k" when a word of ``name`` (a file's or a folder's)
    says the tool keeps it as such, else None. Best wins over the others (``best_last.pt``
    is a best), then top-k, final, last."""
    words = [w.lower() for w in _TOKEN.findall(_CAMEL.sub(" ", without_scores(name)))]
    roles = set()
    for at, word in enumerate(words):
        if word in _ROLE_WORDS:
            roles.add(_ROLE_WORDS[word])
        elif word == "topk" or (word == "top" and at + 1 < len(words)
                                and (words[at + 1].isdigit() or words[at + 1] == "k")):
            roles.add("top-k")
    for role in ("best", "top-k", "final", "last"):
        if role in roles:
            return role
    return None


# ------------------------------------------------------------------ what a name is about
#: Words of a file's name that say it holds a model or a training state.
MODEL_WORDS = frozenset({
    "model", "models", "ckpt", "checkpoint", "checkpoints", "weights", "weight", "snapshot",
    "policy", "statedict", "net", "network", "learner", "booster",
    "estimator", "agent", "actor", "critic", "encoder", "decoder",
    # what a fitted thing is called by what it does (scikit-learn's clf, SDV's synthesizers)
    "clf", "classifier", "classifiers", "regressor", "regressors", "forecaster",
    "forecasters", "predictor", "predictors", "synthesizer", "synthesizers", "detector",
})
#: Words of a file's name that say it is a record of a run: metrics, history, progress.
RECORD_WORDS = frozenset({
    "history", "metrics", "metric", "progress", "results", "result", "eval", "evaluation",
    "evaluations", "log", "logs", "stats", "statistics", "scores", "losses", "loss", "error",
    "errors", "curve", "curves", "monitor", "summary", "experiment", "messages", "events",
    "records", "trial", "trials", "oracle", "tuner", "study", "leaderboard", "timings",
    "benchmark", "benchmarks", "report", "reports", "explanation", "explanations",
})
#: Words of a pickle's name that say it is a search's own state (an evolutionary
#: search's population, a tuner's optimizer or sampler): saved to resume the search, it
#: holds no model, so beside no model it is the search's record.
SEARCH_STATE_WORDS = frozenset({"population", "optimizer", "sampler", "searcher", "tuner",
                                "study", "oracle", "generation", "generations"})
#: Words of a file's name that say it configures or describes something (kept as it is).
CONFIG_WORDS = frozenset({
    "config", "configuration", "cfg", "conf", "settings", "options", "params", "parameters",
    "hyperparameters", "spec", "schema", "vocab", "tokenizer", "labels", "classes", "mapping",
    "requirements", "environment", "package", "manifest", "index",
})
#: Words of a file's name that say it describes what sits beside it (its metadata, its
#: version), as a model card or a package's metadata does.
ABOUT_WORDS = frozenset({"meta", "metadata", "version", "info", "card"})
#: Words of a data file's name that name the split it holds.
SPLIT_WORDS = frozenset({"train", "training", "val", "valid", "validation", "test", "testing"})
#: Words of a file's name that say it is a model's vocabulary: useless without the model,
#: and the model useless without it.
VOCAB_WORDS = frozenset({"vocab", "vocabulary", "vocabs"})
#: Key names that identify the run a record belongs to (``run_number``, ``task_id``,
#: ``attempt_id``): a JSON object that names its run, and when, is a record of that run.
RUN_ID_WORDS = frozenset({"run", "task", "trial", "job", "attempt", "experiment", "flow",
                          "pipeline", "worker"})
#: Key names that date a record (``ts_epoch``, ``timestamp``, ``created_at``).
WHEN_WORDS = frozenset({"ts", "time", "timestamp", "date", "datetime", "created", "updated",
                        "started", "finished", "start", "end"})
#: Column or key names that count a run's progress.
PROGRESS_WORDS = frozenset({
    "epoch", "epochs", "step", "steps", "iter", "iters", "iteration", "iterations", "episode",
    "episodes", "timestep", "timesteps", "global_step", "batch", "update", "updates",
    "time", "elapsed",
})


def words_of(name: str) -> list[str]:
    """A name's words, lower case: split at separators, digits and case changes."""
    return [w.lower() for w in re.findall(r"[A-Za-z]+", _CAMEL.sub(" ", name))]


#: Stems that say "model" even inside a longer word (``cbsnapshot``, ``bestckpt``).
_MODEL_STEMS = ("ckpt", "checkpoint", "snapshot", "weights")


def says_model(name: str) -> bool:
    lower = name.lower()
    return not MODEL_WORDS.isdisjoint(words_of(name)) or any(
        s in lower for s in _MODEL_STEMS) or says_model_format(name)


#: Stems of an extension that name a model's format (``.pdiparams``, MXNet's ``.params``,
#: Darknet's ``.weights``, ``.caffemodel``): the format says weights, whatever the file is
#: called. Only the extension: a file *named* params (Ray's ``params.pkl``) is a config.
_MODEL_FORMAT_STEMS = ("param", "weight", "ckpt", "checkpoint", "model")


def says_model_format(name: str) -> bool:
    """Whether the extension (the part after the last dot) is a model's format."""
    dot = name.rfind(".")
    ext = name[dot + 1:].lower() if dot > 0 else ""
    return any(stem in ext for stem in _MODEL_FORMAT_STEMS)


def says_config(name: str) -> bool:
    return not CONFIG_WORDS.isdisjoint(words_of(name))


def says_about(name: str) -> bool:
    return not ABOUT_WORDS.isdisjoint(words_of(name))


def says_split(name: str) -> bool:
    return not SPLIT_WORDS.isdisjoint(words_of(name))


def says_vocab(name: str) -> bool:
    return not VOCAB_WORDS.isdisjoint(words_of(name))


#: Words of a file's name that say it holds what a model predicted.
PREDICTION_WORDS = frozenset({"prediction", "predictions", "predicted", "preds", "pred",
                              "probabilities", "probability", "probs", "proba"})


def says_predictions(name: str) -> bool:
    return not PREDICTION_WORDS.isdisjoint(words_of(name))


#: Words of a file's name that say how a job ended.
JOB_STATUS_WORDS = frozenset({"success", "succeeded", "failed", "failure", "done",
                              "completed", "finished", "status"})


def says_job_status(name: str) -> bool:
    return not JOB_STATUS_WORDS.isdisjoint(words_of(name))


def says_cache(name: str) -> bool:
    """A name with cache as a word (``wds-cache``, ``cache_dir``, ``.cached``)."""
    return not {"cache", "caches", "cached"}.isdisjoint(words_of(name))


#: Words of a picture's or a video's name that say it is what a run drew or recorded of
#: itself (an evaluation plot, a feature-importance chart, an agent's episode), not a
#: sample of data.
FIGURE_WORDS = frozenset({
    "plot", "plots", "chart", "charts", "curve", "curves", "heatmap", "histogram", "matrix",
    "importance", "roc", "auc", "shap", "boxplot", "confusion", "calibration", "lift",
    "residuals", "correlation", "scatter", "leaderboard", "ldb", "dependence", "decisions",
    # what an agent's run recorded of itself (Gymnasium's RecordVideo: cem-episode-25.mp4)
    "episode", "rollout", "render", "replay",
})
#: A run of this many digits in a name is a sample's number: data, whatever its words.
_SAMPLE_NUMBER = re.compile(r"\d{3}")


def says_figure(name: str) -> bool:
    """An image named for what it shows (``roc_curve.png``, ``features_heatmap.png``) and
    not numbered like a sample (``chart_00012.png`` is one of a dataset of charts)."""
    return not FIGURE_WORDS.isdisjoint(words_of(name)) and not is_numbered_sample(name)


def is_numbered_sample(name: str) -> bool:
    return _SAMPLE_NUMBER.search(name) is not None


#: Words of a folder's name that say it holds figures (figures/, plots/, umap_plots/).
FIGURE_FOLDER_WORDS = frozenset({"figures", "figs", "plots", "charts", "visualizations",
                                 "visualisations"})


def says_figure_folder(name: str) -> bool:
    return not FIGURE_FOLDER_WORDS.isdisjoint(words_of(name))


def says_search_state(name: str) -> bool:
    return not SEARCH_STATE_WORDS.isdisjoint(words_of(name))


#: Record words long enough to mean the same at the end of a compound (``runhistory``,
#: ``trainmetrics``, ``evalresults``).
_RECORD_ENDINGS = ("history", "metrics", "results", "progress", "statistics", "summary")


def says_record(name: str) -> bool:
    words = words_of(name)
    return not RECORD_WORDS.isdisjoint(words) or any(
        len(w) > len(end) and w.endswith(end) for w in words for end in _RECORD_ENDINGS)


def metric_like(column: str) -> bool:
    """A table column or record key that is a metric or counts progress (``val_loss``,
    ``rollout/ep_rew_mean``, ``iter``)."""
    lower = column.lower()
    return direction(column) is not None or lower in PROGRESS_WORDS \
        or not PROGRESS_WORDS.isdisjoint(words_of(column))
