# frozen_string_literal: true

require "json"

module Arena
  module Results
    # tune.json's "answer" record (Tune::Answer#to_record, written by
    # TuneDocument), read back as a value for the reports: the answer's
    # server and settings, its margin over the runner-up from the
    # confirmation rounds, against the app's own config (baseline), how to
    # start it, and what would change it.
    # runner_up and baseline: {server/config, settings, ratio, interval} as
    # Hashes of symbols; interval: [low, high] ratios; out: {key => why};
    # keep: the confirmation rounds said to keep the baseline; figures: the
    # answer's absolute figures from them ({rps:, p99_ms:, pss_mib:, speed_range:}).
    TuneAnswer = Struct.new(:server, :settings, :version, :command, :config_file, :gem, :runner_up, :ratio, :interval,
      :verdict, :rounds, :slo_ms, :memory_mib, :changes, :not_done, :out, :baseline, :keep, :figures, :measured_on, keyword_init: true)

    class TuneAnswer
      FILE = "tune.json"

      # The answer of the tune whose directory this is, or nil (a run's
      # directory, an unreadable file, a tune that wrote none).
      def self.read(dir)
        path = File.join(dir.to_s, FILE)
        return nil unless File.file?(path)
        from_h(JSON.parse(File.read(path))["answer"])
      rescue JSON::ParserError, SystemCallError, NoMethodError, TypeError
        nil
      end

      def self.from_h(h)
        return nil unless h.is_a?(Hash)
        up = h["runner_up"].is_a?(Hash) ? {server: h["runner_up"]["server"], settings: hash(h["runner_up"]["settings"])} : nil
        base = h["baseline"].is_a?(Hash) ? {config: h["baseline"]["config"], ratio: h["baseline"]["ratio"], interval: pair(h["baseline"]["interval"]),
                                            verdict: h["baseline"]["verdict"]} : nil
        figures = h["figures"].is_a?(Hash) ? {rps: h["figures"]["rps"], p99_ms: h["figures"]["p99_ms"], pss_mib: h["figures"]["pss_mib"],
                                              speed_range: pair(h["figures"]["speed_range"])} : nil
        gem = h["gem"].is_a?(Hash) ? [h["gem"]["name"], h["gem"]["version"]] : nil
        new(server: h["server"], settings: hash(h["settings"]), version: h["version"], command: h["command"] && Array(h["command"]),
          config_file: h["config_file"], gem: gem, runner_up: up, ratio: h["ratio"], interval: pair(h["interval"]),
          verdict: h["verdict"], rounds: h["rounds"], slo_ms: h["slo_ms"], memory_mib: h["memory_mib"],
          changes: Array(h["changes"]).map(&:to_s), not_done: Array(h["not_done"]).map(&:to_s), out: hash(h["out"]), baseline: base,
          keep: h["keep"] == true, figures: figures, measured_on: h["measured_on"]&.to_s).freeze
      end

      def self.hash(value) = value.is_a?(Hash) ? value.to_h { |k, v| [k.to_s, v] } : {}

      def self.pair(value) = (value.is_a?(Array) && value.size == 2 && value.all?(Numeric)) ? value : nil

      def found? = !server.nil?
    end
  end
end
