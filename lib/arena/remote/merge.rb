# frozen_string_literal: true

require_relative "../stats/histogram"

module Arena
  module Remote
    # Several loaders' engine documents into one, as if one engine had made
    # every request: counts summed, latency from the exact merge of their
    # histograms (never an average of percentiles), the timeline summed second
    # by second with each second's percentiles from its merged histogram. The
    # loaders started on one "go" line, so their second t is the same second.
    module Merge
      # extend self, not module_function: Name.call then runs the methods mutant mutates
      extend self

      # raws: the engines' JSON documents (written with --histograms), in loader order.
      def call(raws, hosts: nil)
        raise Error, "nothing to merge" if raws.empty?
        whole = Stats::Histogram.merge(raws.map { |r| histogram(r["latency_histogram"], "latency_histogram") })
        duration = raws.map { |r| r.fetch("duration_s", 0.0) }.max
        completed = raws.sum { |r| r.dig("requests", "completed").to_i }
        raws.first.except("loader_cpu_pct").merge(
          "threads" => raws.sum { |r| r["threads"].to_i },
          "connections" => sum_hashes(raws.map { |r| r["connections"] }),
          "duration_s" => duration, "requests" => sum_hashes(raws.map { |r| r["requests"] }),
          "throughput_rps" => duration.positive? ? (completed / duration).round(2) : 0.0,
          "bytes_received" => raws.sum { |r| r["bytes_received"].to_i },
          "status" => sum_hashes(raws.map { |r| r["status"] }),
          "errors" => sum_hashes(raws.map { |r| r["errors"] }),
          "latency_us" => whole.latency_us, "latency_histogram" => whole.to_h,
          "open" => merge_open(raws), "good" => good(raws, duration), "requests_mix" => requests_mix(raws),
          "stages" => stages(raws), "timeline" => timeline(raws),
          "loaders" => raws.each_with_index.map { |r, i| loader_summary(r, hosts&.at(i)) }
        )
      end

      def histogram(hash, where)
        raise Error, "loader document has no #{where} (engine without --histograms?)" if hash.nil?
        Stats::Histogram.decode(hash)
      end

      # Goodput over every loader: good responses summed, their latency from
      # the merged histograms of good responses alone (the engine writes one
      # with --histograms). A loader without that histogram leaves the good
      # latency unmeasured (count 0: "cannot judge") rather than one loader's.
      def good(raws, duration)
        goods = raws.map { |r| r["good"] }
        return nil if goods.any? { |g| !g.is_a?(Hash) }
        completed = goods.sum { |g| g["completed"].to_i }
        hists = goods.map { |g| g["latency_histogram"] }
        latency = if hists.all?
          Stats::Histogram.merge(hists.map { |h| histogram(h, "good latency_histogram") }).latency_us
        else
          {"count" => 0}
        end
        {"completed" => completed, "rps" => duration.positive? ? (completed / duration).round(2) : 0.0, "latency_us" => latency}
      end

      # A mix's requests, by name (every loader ran the same mix): counts
      # summed, latency from the merged histograms of each request's good
      # responses. nil when a loader reported none (no mix, or over 256).
      def requests_mix(raws)
        lists = raws.map { |r| r["requests_mix"] }
        return nil unless lists.all?(Array)
        names = lists.first.map { |q| q["name"] }
        return nil unless lists.all? { |l| l.map { |q| q["name"] } == names }
        lists.transpose.map do |same|
          same.first.slice("name", "weight_share").merge(sum_fields(same, %w[completed good bad]), latency_of(same))
        end
      end

      # A profile's stages, in order (each loader ran its share of every
      # stage's rate): rates and counts summed, latency merged. nil when a
      # loader reported none or a different number of stages.
      def stages(raws)
        lists = raws.map { |r| r["stages"] }
        return nil unless lists.all?(Array) && lists.map(&:size).uniq.size == 1
        lists.transpose.map do |same|
          same.first.slice("start_s", "duration_s").merge(
            "from_rps" => same.sum { |s| s["from_rps"].to_f }, "to_rps" => same.sum { |s| s["to_rps"].to_f },
            "asked" => same.sum { |s| s["asked"].to_f }, **sum_fields(same, %w[sent completed good errors dropped]), **latency_of(same)
          )
        end
      end

      def sum_fields(entries, keys) = keys.to_h { |k| [k, entries.sum { |e| e[k].to_i }] }

      # latency_us (and latency_histogram) of entries' merged histograms;
      # count 0 ("cannot judge") when one lacks its histogram.
      def latency_of(entries)
        hists = entries.map { |e| e["latency_histogram"] }
        return {"latency_us" => {"count" => 0}} unless hists.all?
        merged = Stats::Histogram.merge(hists.map { |h| histogram(h, "latency_histogram of a request or stage") })
        {"latency_us" => merged.latency_us, "latency_histogram" => merged.to_h}
      end

      # (nil entries, a loader without the section, are left out.)
      def sum_hashes(hashes)
        hashes.compact.reduce({}) { |acc, h| acc.merge(h) { |_, a, b| (a.is_a?(Numeric) && b.is_a?(Numeric)) ? a + b : a } }
      end

      def merge_open(raws)
        opens = raws.map { |r| r["open"] }.compact
        return nil if opens.empty?
        {"target_rps" => opens.sum { |o| o["target_rps"].to_f }.round(2), "late" => opens.sum { |o| o["late"].to_i },
         "dropped" => opens.sum { |o| o["dropped"].to_i }}
      end

      def timeline(raws)
        lines = raws.map { |r| r["timeline"] || [] }
        Array.new(lines.map(&:size).max) do |t|
          seconds = lines.filter_map { |line| line[t] }
          hist = Stats::Histogram.merge(seconds.filter_map { |s| s["histogram"] && Stats::Histogram.decode(s["histogram"]) })
          good = (seconds.sum { |s| s["good"].to_i } if seconds.all? { |s| s.key?("good") })
          {"t" => t, "completed" => seconds.sum { |s| s["completed"].to_i }, "good" => good, "errors" => seconds.sum { |s| s["errors"].to_i },
           "p50_us" => hist&.percentile(50) || 0, "p99_us" => hist&.percentile(99) || 0,
           "error_kinds" => sum_hashes(seconds.map { |s| s["error_kinds"] }),
           "histogram" => hist&.to_h}.compact
        end
      end

      def loader_summary(raw, host)
        {"host" => host, "connections" => raw.dig("connections", "requested"),
         "completed" => raw.dig("requests", "completed"), "errors" => raw.dig("errors", "total"),
         "throughput_rps" => raw["throughput_rps"], "p99_us" => raw.dig("latency_us", "p99"),
         "cpu_pct" => raw["loader_cpu_pct"]}.compact
      end
    end
  end
end
