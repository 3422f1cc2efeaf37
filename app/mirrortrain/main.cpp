// mirrortrain: the headless front end of Mirror Workbench. Wiring only: parse flags, call a command.
#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <torch/version.h>

#include <cstdio>

#include "commands.h"
#include "mirror/optim/optimizer.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/version.h"

int main(int argc, char** argv) {
  using namespace mirror::cli;
  CLI::App app{"mirrortrain: mirrored synchronous data-parallel training (MirroredStrategy semantics) "
               "on logical devices, headless"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("mirrortrain {}\nLibTorch {}", mirror::kVersion, TORCH_VERSION),
                       "Print the version and exit");
  // Every command's options on one page: the man page is made from it at build time (help2man).
  app.set_help_all_flag("--help-all", "Print the help of every command and exit");

  auto add_model = [](CLI::App* cmd, ModelArgs& a) {
    mirror::ConfigOverrides& m = a.overrides;
    cmd->add_option("--preset", a.preset, "Preset to start from (see `mirrortrain presets`)")->capture_default_str();
    cmd->add_option("--model-file", a.model_file,
                    "Model file: JSON (a Keras-style layer list, or Keras' to_json()) or a Keras 3 .keras file, whose "
                    "trained weights the run starts from; replaces the preset's model");
    cmd->add_flag("--fresh-weights", a.fresh_weights, "With a .keras --model-file: start from new weights drawn from --seed");
    cmd->add_option("--dataset", m.dataset, "Dataset (see `mirrortrain datasets`); default: the preset's");
    cmd->add_option("--data-dir", m.data_dir, "Directory holding the dataset's files");
    cmd->add_option("--seed", m.seed, "Seed for weights, data order and synthetic data (default: the preset's; 42)");
    cmd->add_option("--train-size", m.train_size, "Synthetic datasets: training examples");
    cmd->add_option("--val-size", m.val_size, "Synthetic datasets: validation examples");
    cmd->add_option("--num-words", m.num_words, "Reuters/IMDB: keep the most frequent words (load_data's num_words; 0: all); texts: TextVectorization's max_tokens")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--skip-top", m.skip_top, "Reuters/IMDB: the most frequent words to skip (load_data's skip_top)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--maxlen", m.maxlen, "Reuters/IMDB: drop sequences this long or longer (load_data's maxlen; 0: none)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--seq-len", m.sequence_length, "Reuters/IMDB/texts: pad or truncate to this length (default 300 / 500; texts: the longest training text, 16-500)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--min-wires-per-topic", m.min_wires_per_topic,
                    "Raw Reuters SGML: keep topics with at least this many wires (default 15, as Keras)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--validation-split", m.validation_split,
                    "Your own data (images, texts, table): the share held out for validation (default 0.2, split as Keras)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--image-size", m.image_size, "Images: HEIGHTxWIDTH or one size for both (default 256x256, as Keras)");
    cmd->add_option("--color-mode", m.color_mode, "Images: grayscale, rgb or rgba (default rgb)")
        ->check(CLI::IsMember({"grayscale", "rgb", "rgba"}));
    cmd->add_flag("--crop-to-aspect-ratio", m.crop_to_aspect_ratio, "Images: crop to the target aspect ratio before resizing");
    cmd->add_flag("--follow-links", m.follow_links, "Images/texts: follow symbolic links to class folders and files");
    cmd->add_option("--label-column", m.label_column, "Table: the label column, by header name or 0-based index (default: the last)");
  };

  // The options of `train`, shared by `sweep` (whose runs each take them as the base).
  auto add_train = [&add_model](CLI::App* cmd, TrainArgs& t, bool sweep) {
    add_model(cmd, t.model);
    mirror::ConfigOverrides& o = t.model.overrides;
    cmd->add_option("--epochs", o.epochs, "Epochs");
    cmd->add_option("--batch-size", o.batch_size, "Global batch size, split across replicas");
    cmd->add_option("--lr", o.lr, "Learning rate");
    cmd->add_option("--optimizer", o.optimizer, "sgd, adam, adamw, rmsprop or nadam")
        ->check(CLI::IsMember(mirror::optimizer_names()));
    cmd->add_option("--momentum", o.momentum, "Momentum (sgd, rmsprop)");
    cmd->add_option("--lr-schedule", o.lr_schedule,
                    "Learning-rate schedule: KIND[:key=value,...], KIND one of constant, piecewise, exponential, "
                    "inverse-time, polynomial, cosine, cosine-restarts (e.g. cosine:decay_steps=2000,alpha=0.1)");
    cmd->add_option("--warmup-steps", o.warmup_steps, "Linear learning-rate warmup over the first N steps");
    cmd->add_option("--scale-lr-with-batch", o.scale_lr_with_batch,
                    "Linear scaling rule: learning rate x global batch / REF");
    cmd->add_option("--early-stopping", o.early_stopping,
                    "Stop when a metric stops improving: METRIC[:patience=N,min_delta=X,mode=min|max,restore_best=1]");
    cmd->add_option("--reduce-lr-on-plateau", o.plateau,
                    "Cut the rate when a metric stalls: METRIC[:factor=0.1,patience=10,cooldown=0,min_lr=0,min_delta=1e-4]");
    cmd->add_option("--clipnorm", o.clipnorm, "Clip each weight's gradient to this norm (Keras' clipnorm)");
    cmd->add_option("--global-clipnorm", o.global_clipnorm, "Clip all gradients to this joint norm");
    cmd->add_option("--clipvalue", o.clipvalue, "Clip each gradient value into [-X, X]");
    cmd->add_flag("--nesterov", o.nesterov, "Nesterov momentum (sgd)");
    cmd->add_option("--devices", o.devices, "cpu, cuda, or cuda:0,1 (default: the preset's; cpu)");
    cmd->add_option("--logical", o.logical, "Logical devices per physical device (replicas each)");
    cmd->add_option("--memory-limit", o.memory_limit_mib, "Memory limit per logical device, MiB (enforced on CUDA)");
    cmd->add_option("--max-steps", o.max_steps, "Stop after this many steps (0: no limit)");
    cmd->add_option("--run-dir", t.run_dir,
                    sweep ? "Folder the sweep's runs go under (default: the runs folder)"
                          : "Record the run in this directory (run.json, metrics.jsonl)");
    cmd->add_flag("--json", t.json, "One JSON object per step and epoch on stdout, then a final one");
    // Defaults are core's (MirroredOptions), said in the help rather than restated as values here.
    const mirror::MirroredOptions defaults;
    cmd->add_option("--communicator", o.communicator,
                    fmt::format("auto or an all-reduce backend (mirrortrain devices lists them; default {})", defaults.communicator));
    cmd->add_option("--sync-every", o.sync_every,
                    fmt::format("Check replicas are identical every N steps (0: only at the end; default {})", defaults.sync_check_every));
    cmd->add_option("--threads", o.threads, "Intra-op threads per replica (0: cores / replicas)");
    cmd->add_flag("--deterministic", o.deterministic, "Deterministic algorithms only: same seed, same numbers");
    cmd->add_option("--sparse-exchange", o.sparse_exchange,
                    "Several processes: embedding gradients cross as the rows a step touched (on, default) or whole (off)")
        ->check(CLI::IsMember({"on", "off"}));
    cmd->add_option("--overlap", o.backward_overlap,
                    "Several processes of one CPU replica: the last layers' gradients cross while backward computes "
                    "the first ones' (on, default) or all after backward (off)")
        ->check(CLI::IsMember({"on", "off"}));
    cmd->add_option("--precision", o.precision,
                    "float32 (default), or mixed-bf16: Keras' mixed_bfloat16, the layers in bfloat16 from float32 "
                    "weights and loss (CPUs with AVX512_BF16/AMX, GPUs of compute capability 8.0+; refused elsewhere)")
        ->check(CLI::IsMember({"float32", "mixed-bf16"}));
    cmd->add_option("--cuda-graphs", o.cuda_graphs,
                    "GPU replicas: capture the step as one CUDA graph (auto: where it can, saying why not; on: "
                    "refuse a run it cannot capture; off; default " + defaults.cuda_graphs + ")")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    cmd->add_option("--top-k", o.top_k, fmt::format("k of the top-k accuracy (default {})", defaults.top_k));
    cmd->add_option("--checkpoint-every", o.checkpoint_every,
                    "Also checkpoint every N steps (always at epoch ends and on stop)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--link", o.link,
                    "Simulate a slower link under every all-reduce (the what-if, recorded as simulated): a preset "
                    "(mirrortrain predict --links) or latency=5us,bandwidth=1Gbit (latency alone: unlimited bandwidth); "
                    "also with --config");
    if (sweep) return;
    cmd->add_flag("--no-record", t.no_record, "Do not record the run (by default it goes under the runs folder)");
    cmd->add_option("--config", t.config_file,
                    "Train this config (JSON: a run.json, or the window's Copy launch command); other flags "
                    "are ignored except --epochs, --max-steps, --devices, --logical and --data-dir")
        ->check(CLI::ExistingFile);
    cmd->add_option("--nproc", t.nproc,
                    "Run N local worker processes (c10d over Gloo, as torchrun would start them); replicas are "
                    "N x --logical")
        ->check(CLI::Range(2, 64));
    cmd->add_option("--timeout", t.timeout_s,
                    "Seconds workers wait for each other before giving up (start-up and each collective)")
        ->check(CLI::Range(1, 86400))
        ->capture_default_str();
    cmd->add_option("--trace", t.trace_file,
                    "Write the steps of --trace-steps as a Chrome trace (JSON for ui.perfetto.dev or chrome://tracing): "
                    "each replica's phases, the all-reduce, pace and pause waits, loss");
    cmd->add_option("--trace-steps", t.trace_steps, "Global steps A-B to trace (keep it short: a few KB a step)")
        ->capture_default_str();
    cmd->add_option("--resume", t.resume,
                    "Continue the run recorded in this directory from its newest checkpoint (--epochs and "
                    "--max-steps may extend it; --logical and --nproc may change how its replicas are laid out)");
    cmd->add_flag("--print-config", t.print_config,
                  "Print the config these flags train (JSON, as --config reads it) and exit without training")
        ->excludes("--resume");
    cmd->add_flag("--accept-changed-data", t.accept_changed_data,
                  "With --resume: go on although the run's own data changed since it was recorded (other files or "
                  "contents; run.json keeps both), where resuming would otherwise refuse")
        ->needs("--resume");
  };
  TrainArgs t;
  auto* train = app.add_subcommand("train", "Train a model");
  add_train(train, t, false);

  SweepArgs sw;
  auto* sweep = app.add_subcommand("sweep", "Train a grid of settings, one run each, and compare them");
  add_train(sweep, sw.train, true);
  sweep->add_option("--grid", sw.grid,
                    "A setting and its values, KEY=V1,V2 or KEY=V1 V2 (repeatable; KEY: lr, batch, logical, epochs, "
                    "optimizer, momentum, seed or a dotted config key)");
  sweep->add_flag("--scaling", sw.scaling,
                  "Scaling study: the same config on 1, 2 and 4 logical devices (1 epoch unless --epochs or "
                  "--max-steps; steady state: the second half of each run's steps), then throughput, speed-up and where each step's time goes");
  sweep->add_option("--scaling-devices", sw.scaling_devices, "Logical-device counts of the scaling study")
      ->delimiter(',')
      ->capture_default_str();
  sweep->add_option("--tries", sw.tries,
                    "Runs of each point, interleaved (1, 2, 4, 1, 2, 4, ...): the study reports medians and the "
                    "spread (default: 3 with --scaling, else 1)")
      ->check(CLI::Range(1, 100));

  LessonArgs lesson_args;
  auto* lesson = app.add_subcommand("lesson", "Train a lesson's runs in order and compare them (without NAME: list the lessons)");
  lesson->add_option("name", lesson_args.name, "A lesson's name, or the path of a lesson's .json file");
  lesson->add_option("--max-steps", lesson_args.max_steps, "Stop every run after this many steps (a quick rehearsal)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  lesson->add_option("--run-dir", lesson_args.root, "Folder the lesson's runs go under (default: the runs folder)");
  lesson->add_flag("--json", lesson_args.json, "Print events as JSON lines instead of progress");

  ModelArgs s;
  auto* summary = app.add_subcommand("summary", "Print the Keras-style summary of a model on a dataset");
  add_model(summary, s);
  ModelArgs evaluate_args;
  EvaluateArgs evaluate_opts;
  auto* evaluate = app.add_subcommand("evaluate", "Validation loss and accuracy of a model's starting weights (a .keras file's)");
  add_model(evaluate, evaluate_args);
  evaluate->add_option("--batch-size", evaluate_opts.batch, "Examples a batch (default: max(the preset's, 256))")
      ->check(CLI::PositiveNumber);
  evaluate->add_option("--devices", evaluate_args.overrides.devices, "cpu, cuda, or cuda:0,1 (default: the preset's; cpu)");
  evaluate->add_option("--logical", evaluate_args.overrides.logical, "Logical devices per physical device");
  evaluate->add_option("--top-k", evaluate_args.overrides.top_k, "k of the top-k accuracy");
  evaluate->add_option("--sample-out", evaluate_opts.sample_out,
                       "Also write sample_input.npy and sample_output.npy here (as `export` does), to check against Keras");
  evaluate->add_option("--sample", evaluate_opts.sample, "Examples in that sample")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))->capture_default_str();
  evaluate->add_flag("--json", evaluate_opts.json, "One JSON object instead of the lines");
  ModelArgs inspect_args;
  int inspect_samples = 3;
  std::string inspect_npz;
  auto* inspect = app.add_subcommand("inspect", "Describe a dataset and show a few decoded examples");
  add_model(inspect, inspect_args);
  inspect->add_option("--samples", inspect_samples, "Examples to show")->capture_default_str();
  inspect->add_option("--write-keras-npz", inspect_npz,
                      "Also write every example of a text dataset to FILE as Keras keeps its own (reuters.npz: "
                      "keras.datasets.reuters.load_data and --dataset reuters --data-dir read it)");
  RunsArgs runs_args;
  auto* runs = app.add_subcommand("runs", "List, show and compare recorded runs");
  runs->require_subcommand(1);
  runs->add_option("--root", runs_args.root, "Folder of runs (default: $MIRROR_RUNS_DIR or ~/.local/share/mirror-workbench/runs)");
  runs->add_flag("--csv", runs_args.csv, "CSV instead of a table");
  auto* runs_list = runs->add_subcommand("list", "Every recorded run");
  auto* runs_show = runs->add_subcommand("show", "One run: its config and epochs");
  runs_show->add_option("dir", runs_args.dirs, "Run directory (or its name under the root)")->required()->expected(1);
  auto* runs_compare = runs->add_subcommand("compare", "Runs side by side: the settings that differ and their results");
  runs_compare->add_option("dirs", runs_args.dirs, "Run directories (or names under the root)")->required()->expected(2, 64);
  ExportArgs export_args;
  auto* export_cmd = app.add_subcommand("export", "Write a run's trained model as a PyTorch state dict and model.py, or as ONNX");
  export_cmd->add_option("run", export_args.run, "Run directory (or its name under the runs folder)")->required();
  export_cmd->add_option("--format", export_args.format, "pt: model.pt for torch.load plus model.py; onnx: model.onnx (opset 13); keras: model.keras "
                     "for keras.models.load_model (Keras 3)")
      ->check(CLI::IsMember({"pt", "onnx", "keras"}))
      ->capture_default_str();
  export_cmd->add_option("--out", export_args.out_dir, "Folder to write into (default: RUN/export)");
  export_cmd->add_option("--checkpoint", export_args.checkpoint,
                         "Whose weights: last (the newest checkpoint), best (best validation accuracy) or a checkpoint file")
      ->capture_default_str();
  export_cmd->add_option("--sample", export_args.sample,
                         "Also write this many validation examples and our outputs for them (sample_input.npy, "
                         "sample_output.npy), to check the export where it lands; 0: none")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  export_cmd->add_option("--root", export_args.root, "Folder of runs (default: $MIRROR_RUNS_DIR or ~/.local/share/mirror-workbench/runs)");
  PredictArgs predict_args;
  auto* predict = app.add_subcommand("predict", "What-if: fit runs' measured steps and predict 1 to 512 devices over a link");
  predict->add_option("runs", predict_args.runs,
                      "Run directories (or names under the runs folder) with step timelines: one run, or a scaling "
                      "study's runs (as the window's Scaling page predicts them)");
  predict->add_option("--link", predict_args.link,
                      "Link to predict over: a preset (--links lists them) or latency=5us,bandwidth=1Gbit "
                      "(default: this machine's, fitted from the runs)");
  predict->add_option("--algorithm", predict_args.algorithm,
                      "All-reduce: ring, tree, or hierarchical (ring over NVLink 4 inside a node, then --link between nodes)")
      ->capture_default_str();
  predict->add_option("--devices", predict_args.devices,
                      "Device counts: 1,2,4,8 or 1-8 or 1..512 (default 1,2,4,...,512 and each count the runs measured)");
  predict->add_option("--scaling", predict_args.scaling,
                      "weak (fixed per-replica batch) or strong (fixed global batch); default strong for a study's "
                      "runs of one global batch, else weak")
      ->check(CLI::IsMember({"weak", "strong"}));
  predict->add_option("--devices-per-node", predict_args.devices_per_node, "Hierarchical: devices per node")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  predict->add_flag("--json", predict_args.json, "One JSON object instead of the table");
  predict->add_flag("--links", predict_args.list_links, "List the link presets with their sources, and exit");
  predict->add_option("--root", predict_args.root, "Folder of runs (default: $MIRROR_RUNS_DIR or ~/.local/share/mirror-workbench/runs)");
  std::string trace_run, trace_root, trace_steps = "1-20", trace_output;
  auto* trace = app.add_subcommand("trace", "Write a recorded run's steps as a Chrome trace (ui.perfetto.dev, chrome://tracing)");
  trace->add_option("run", trace_run, "Run directory (or its name under the runs folder); it must have step timelines")
      ->required();
  trace->add_option("--steps", trace_steps, "Global steps A-B to trace")->capture_default_str();
  trace->add_option("--output", trace_output, "The trace file to write (default: RUN/trace-steps-A-B.json)");
  trace->add_option("--root", trace_root, "Folder of runs (default: $MIRROR_RUNS_DIR or ~/.local/share/mirror-workbench/runs)");
  auto* presets = app.add_subcommand("presets", "List the presets");
  auto* devices = app.add_subcommand("devices", "List the physical devices found");
  auto* datasets = app.add_subcommand("datasets", "List the datasets");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "mirrortrain: error: %s (see mirrortrain --help)\n", e.what());
    return kExitBadConfig;
  }
  // Each command reports its own errors; this catches what one lets through (no home folder for
  // the default runs root, say), so that no input ends the program with an abort.
  try {
    if (train->parsed()) return run_train(t, argv);
    if (sweep->parsed()) return run_sweep(sw);
    if (lesson->parsed()) return run_lesson(lesson_args);
    if (summary->parsed()) return run_summary(s);
    if (evaluate->parsed()) return run_evaluate(evaluate_args, evaluate_opts);
    if (inspect->parsed()) return run_inspect(inspect_args, inspect_samples, inspect_npz);
    if (runs_list->parsed()) return run_runs_list(runs_args);
    if (runs_show->parsed()) return run_runs_show(runs_args);
    if (runs_compare->parsed()) return run_runs_compare(runs_args);
    if (export_cmd->parsed()) return run_export(export_args);
    if (predict->parsed()) return run_predict(predict_args);
    if (trace->parsed()) return run_trace(trace_run, trace_root, trace_steps, trace_output);
    if (presets->parsed()) return run_presets();
    if (devices->parsed()) return run_devices();
    if (datasets->parsed()) return run_datasets();
  } catch (const mirror::ConfigError& e) {
    return config_error(e);
  } catch (const mirror::DataError& e) {
    return config_error(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mirrortrain: error: %s\n", mirror::terminal_text(mirror::describe_exception(e), mirror::LineBreaks::kKeep).c_str());
    return kExitRunFailed;
  }
  return kExitBadConfig;
}
