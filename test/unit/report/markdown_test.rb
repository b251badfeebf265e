# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"

# report.md of a real run (test/fixtures/results/steady: three servers, two
# workloads, two repeats), compared as a whole: the pick, the sorted results
# with their verdicts, the findings, then the detail (issue 45).
class ReportMarkdownTest < Minitest::Test
  FIXTURE = File.expand_path("../../fixtures/results/steady", __dir__)

  def test_whole_markdown_of_a_repeated_steady_run
    source = Arena::Report::Source.open(FIXTURE)
    assert_equal <<~MD, Arena::Report::Markdown.new(source.view, notes: source.notes).render
      # Arena report

      Arena 0.1.0, started 2026-11-22T01:13:08Z, complete.

      ## The pick

      Derived from this run's numbers only; a different machine or app may rank differently.

      | use case | pick | why |
      |---|---|---|
      | fast request/response API | - | puma:threads=2 5,651 good req/s (4,363–6,938 over 2 runs), p99 11.8ms, CPU 38% on server; runner-up falcon 3,982 good req/s (3,831–4,133 over 2 runs), p99 14.2ms, CPU 31%; not distinguishable: puma:threads=2 and falcon here: falcon has 2 round(s), puma:threads=2 2; the test needs 3 each: run `arena run --rounds 3` |
      | waiting on I/O or long requests | - | not measured in this run: run `arena run --workload sleep --scenario steady,rate` |
      | CPU-bound work | - | puma:threads=2 102 good req/s (73.5–130 over 2 runs), p99 204.9ms, CPU 73% on primes; runner-up falcon 65.5 good req/s (65.0–66.0 over 2 runs), p99 179.1ms, CPU 49%; not distinguishable: puma:threads=2 and falcon here: falcon has 2 round(s), puma:threads=2 2; the test needs 3 each: run `arena run --rounds 3` |
      | limited memory or many small apps | falcon | PSS peak 50.8 MiB (RSS 99.2 MiB) at 3,982 good req/s on server with 2 workers, among the servers within 50% of the best goodput (5,651 req/s); runner-up puma:threads=2 56.7 MiB with 2 workers at 5,651 req/s: 1.12x the memory; 1 smaller-serving server(s) left out |
      | surviving crashes and deploys | - | not measured in this run: run `arena run --scenario crash,restart` |
      | slow clients without a proxy | - | not measured in this run: run `arena run --scenario slow-clients` |

      ## Results

      Each row against the fastest config of its group that did not fail, paired on the rounds both ran in: "~ same" where the 95% interval of the ratio holds 1 or lies within ±3%, else the ratio and its interval. Every column of every row: Detail.

      ### server · steady keep-alive

      | server | vs the fastest | good req/s ±95% | p99 (rounds) | PSS peak |
      |---|---|--:|--:|--:|
      | puma:threads=2 | fastest | 5,651 (no interval) | 11.8ms (10.1ms-13.5ms) | 56.7 MiB |
      | falcon | 0.70× (2 rounds: no interval) | 3,982 (no interval) | 14.2ms (14.0ms-14.4ms) | 50.8 MiB |
      | unicorn | 0.28× (2 rounds: no interval) | 1,592 (no interval) | 170.7ms (16.1ms-325.2ms) | 54.6 MiB |

      ### primes · steady keep-alive

      | server | vs the fastest | good req/s ±95% | p99 (rounds) | PSS peak |
      |---|---|--:|--:|--:|
      | puma:threads=2 | fastest | 102 (no interval) | 204.9ms (103.1ms-306.8ms) | 111.1 MiB |
      | falcon | 0.65× (2 rounds: no interval) | 65.5 (no interval) | 179.1ms (176.3ms-181.8ms) | 77.4 MiB |
      | unicorn | 0.38× (2 rounds: no interval) | 38.8 (no interval) | n=69 too small | 87.3 MiB |

      ## Findings

      - **unicorn on primes  few-samples  69 good responses: a p99 needs 100, none is shown**  
        unicorn:workers=2,preload=true,timeout=60 primes steady keep-alive: few-samples (2 of 2 runs): fewer than 100 good responses: no p99 is shown

      ## Environment

      |  |  |
      |---|---|
      | CPU | AMD EPYC, 2 cores |
      | memory | 23.54 GiB |
      | kernel | 6.18.44-fc-v657 |
      | OS | Debian GNU/Linux 12 (bookworm) |
      | Ruby | ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu] |
      | YJIT | available, off for the servers |
      | load engine | arena-load 0.1.0 |
      | pinning | servers on CPU 0, load engine on CPU 1 |

      Load: 8 connections; 2.0 s after a 0.5 s warm-up; keep-alive on; 2 rounds, interleaved; scenarios steady (closed loop, -c connections for -d seconds); p99 SLO 100 ms; bind tcp.

      ## Servers

      | server | version | source | status | command |
      |---|---|---|---|---|
      | puma:workers=2,threads=2,preload=false | 8.0.2 | bundle | ok | `bundle exec puma --no-config -e production -t 2:2 -b tcp://127.0.0.1:45913 --pidfile /tmp/rep/a/servers/01-puma_workers=2_threads=2_preload=false/puma.pid -w 2 /work/main/lib/arena/app/arena.ru` |
      | unicorn:workers=2,preload=true,timeout=60 | 6.1.0 | bundle | ok | `bundle exec unicorn -E production -c /tmp/rep/a/servers/02-unicorn_workers=2_preload=true_timeout=60/unicorn.conf.rb /work/main/lib/arena/app/arena.ru` |
      | falcon:count=2,model=forked | 0.51.1 | bundle | ok | `bundle exec falcon serve --bind http://127.0.0.1:42741 --count 2 --forked --config /work/main/lib/arena/app/arena.ru` |

      ## Detail

      Good req/s counts only responses that passed the checks; latency is of good responses. Figures are medians over the rounds; ± is the half-width of the median's 95% interval (t on log figures; "no interval" under 3 rounds); p50 and p99 the rounds' median (from their merged histograms where the engine wrote them), the p99 with its range over the rounds; a round flagged noisy is left out when its re-run is there. The ratio is the row's goodput against its group's reference (the fastest of the same workload and scenario), from the rounds both ran in (the machine's drift cancels in it), ± half its 95% interval, n the rounds it rests on; ≈ marks a ratio equivalent to 1 within ±3%. "!" marks errors over 1%, "stalled" latency that sits at a fixed delay while the server idled (Findings say why). Rows are grouped by workload, the highest goodput first; a server is named by the settings that differ from its defaults (its full config: Servers).

      | server | workload | scenario | good req/s ±95% | ratio ±95% | errors | p50 | p99 (rounds) | max | PSS peak | RSS peak | CPU |
      |---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|
      | puma:threads=2 | server | steady keep-alive | 5,651 (no interval) | reference | 0 | 537us | 11.8ms (10.1ms-13.5ms) | 373.4ms | 56.7 MiB | 95.3 MiB | 38% |
      | falcon | server | steady keep-alive | 3,982 (no interval) | 0.70× puma n=2 | 0 | 369us | 14.2ms (14.0ms-14.4ms) | 47.6ms | 50.8 MiB | 99.2 MiB | 31% |
      | unicorn | server | steady closed by server | 1,592 (no interval) | 0.28× puma n=2 | 0 | 434us | 170.7ms (16.1ms-325.2ms) | 325.4ms | 54.6 MiB | 87.6 MiB | 9% |
      | puma:threads=2 | primes | steady keep-alive | 102 (no interval) | reference | 0 | 75.5ms | 204.9ms (103.1ms-306.8ms) | 374.7ms | 111.1 MiB | 149.3 MiB | 73% |
      | falcon | primes | steady keep-alive | 65.5 (no interval) | 0.65× puma n=2 | 0 | 117.4ms | 179.1ms (176.3ms-181.8ms) | 183.3ms | 77.4 MiB | 125.2 MiB | 49% |
      | unicorn | primes | steady closed by server | 38.8 (no interval) | 0.38× puma n=2 | 0 | 207.7ms | n=69 too small | 751.8ms | 87.3 MiB | 119.9 MiB | 25% |
    MD
  end

  # A scenario's own sections (timelines, curves) reach report.md too: title, note, table.
  def test_scenario_sections_in_markdown
    md = Arena::Report::Markdown.new(Arena::Results::Document.load(File.expand_path("../../fixtures/results/scenarios", __dir__))).render
    assert_includes md, "### Slow clients\n"
    assert_includes md, "### Crash kill-worker: puma:workers=2,threads=2,preload=false · server\n"
    assert_match(/^\| from \(s\) \| good req\/s \| errors \| p50 \| p99 \| processes \|$/, md)
    assert_operator md.index("## The pick"), :<, md.index("### Rate sweep"), "the pick first, the detail after"
  end

  def test_notes_and_a_run_without_measurements
    document = {"schema" => "arena-results/1", "arena_version" => "0.1.0", "created_at" => "2025-01-01T00:00:00Z",
                "interrupted" => true, "measurements" => [], "servers" => []}
    markdown = Arena::Report::Markdown.new(Arena::Results::Document.from_h(document), notes: ["the run was interrupted"]).render
    assert_includes markdown, "Arena 0.1.0, started 2025-01-01T00:00:00Z, interrupted.\n\n> Note: the run was interrupted.\n"
    assert_includes markdown, "## Results\n\nNo measurements.\n"
    assert_includes markdown, "| fast request/response API | - | not measured in this run: run `arena run --workload server` |"
  end
end
