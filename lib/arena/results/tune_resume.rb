# frozen_string_literal: true

require "json"
require_relative "../core"
require_relative "../verdicts/limits"
require_relative "app_digest"
require_relative "measurement"
require_relative "tune_answer"

module Arena
  module Results
    # What `arena tune --resume DIR` reads back of a finished tune, and the
    # record a tune leaves for it: how to plan the same tune again (its
    # arguments and working directory, the paths it discovered), the app's
    # digests (AppDigest), the confirmation's configs and roles, and
    # their earlier rounds from results.json. Its keys are written and read
    # here only.
    #
    # figures: {label => {round => Figure}}; rounds: [RoundRecord], in order;
    # duration_s: the loads' length the tune ran (a slow app's, sized to its pace).
    TuneResume = Struct.new(:dir, :recipe, :answer, :sides, :files, :figures, :rounds, :tune_document, :duration_s, keyword_init: true)

    class TuneResume
      # argv: the tune's own arguments; cwd: where it ran; digest: AppDigest;
      # discovered: [[path, status, weight]] the tune loaded (nil: given).
      Recipe = Struct.new(:argv, :cwd, :digest, :discovered, keyword_init: true) do
        def to_record
          {"argv" => argv, "cwd" => cwd, "app" => {"lock_sha256" => digest&.lock, "code_sha256" => digest&.code},
           "discovered" => discovered&.map { |path, status, weight| {"path" => path, "status" => status, "weight" => weight} }}.compact
        end

        def self.from_h(h)
          return nil unless h.is_a?(Hash) && h["argv"].is_a?(Array) && h["cwd"].is_a?(String) && h["app"].is_a?(Hash)
          found = h["discovered"].is_a?(Array) ? h["discovered"].map { |d| [d["path"], d["status"], d["weight"] || 1] } : nil
          new(argv: h["argv"].map(&:to_s), cwd: h["cwd"], discovered: found,
            digest: AppDigest.new(lock: h["app"]["lock_sha256"], code: h["app"]["code_sha256"]).freeze).freeze
        end
      end

      # One config's figures in one confirmation round (rps 0.0 over the error limit).
      Figure = Struct.new(:rps, :p99_ms, :pss_kb, keyword_init: true)

      # One confirmation round as recorded: the configs in the order they ran,
      # each one's machine-speed reading ([cpu_ms, memory_ms]), its seconds
      # and design (nil where the tune did not record them).
      RoundRecord = Struct.new(:number, :order, :speeds, :seconds, :design, keyword_init: true)

      # tune.json's record of the cores rounds (answer.scaling, written by
      # TuneDocument): config is the label on every core; ratio and interval
      # nil where they were not measured; stay: the same for your server's
      # best config, or nil.
      CoresRecord = Struct.new(:cores, :server_cores, :config, :ratio, :interval, :rounds, :pss_kb, :why, :stay, keyword_init: true) do
        def measured? = !ratio.nil?

        def self.from_h(h)
          return nil unless h.is_a?(Hash)
          new(cores: h["cores"], server_cores: h["server_cores"], config: h["config"], ratio: h["ratio"], interval: h["interval"],
            rounds: h["rounds"], pss_kb: h["pss_mib"]&.*(1024), why: h["why"], stay: from_h(h["stay"])).freeze
        end
      end

      # The earlier answer's cores rounds (CoresRecord), or nil.
      def cores = CoresRecord.from_h(answer&.dig("scaling"))

      # The earlier tune in DIR, or a UsageError that says in one line why it cannot be resumed.
      def self.read(dir)
        tune = document(File.join(dir, TuneAnswer::FILE), dir)
        results = document(File.join(dir, "results.json"), dir)
        answer = tune["answer"]
        refuse(dir, "it was interrupted") if tune["interrupted"]
        refuse(dir, "it has no confirmed answer") unless answer.is_a?(Hash) && answer["confirmation"].is_a?(Hash)
        recipe = Recipe.from_h(tune["resume"])
        refuse(dir, "it was made by an Arena that did not record how to resume it") unless recipe
        new(dir: dir, recipe: recipe, answer: answer, sides: sides(answer), files: files(tune), figures: figures(results),
          rounds: rounds(results), tune_document: tune, duration_s: tune.dig("constraints", "duration_s")).freeze
      end

      def self.refuse(dir, why) = raise(UsageError, "#{dir} is not a finished tune to resume: #{why}")

      def self.document(path, dir)
        refuse(dir, "no #{File.basename(path)}") unless File.file?(path)
        doc = JSON.parse(File.read(path))
        doc.is_a?(Hash) ? doc : refuse(dir, "#{File.basename(path)} is not an object")
      rescue JSON::ParserError
        refuse(dir, "#{File.basename(path)} is not valid JSON")
      end

      # [[role, label]] of the confirmation's configs.
      def self.sides(answer)
        Array(answer.dig("confirmation", "sides")).filter_map { |s| [s["role"], s["config"]] if s.is_a?(Hash) && s["config"] }
      end

      # {server key => {path:, command:}}: each winner's config file, as the tune wrote it.
      def self.files(tune)
        servers = tune["servers"].is_a?(Hash) ? tune["servers"] : {}
        servers.select { |_, s| s.is_a?(Hash) && s["config_file"] }.to_h { |key, s| [key, {path: s["config_file"], command: s["command"]}] }
      end

      def self.figures(results)
        confirmation = Array(results["measurements"]).select { |m| m.is_a?(Hash) && m["variant"] == "confirmation" && m["repeat"] }
        confirmation.group_by { |m| m["server"] }.transform_values do |records|
          records.to_h { |h| [h["repeat"], figure(Measurement.from_h(h))] }
        end
      end

      def self.figure(m)
        over = m.load&.error_pct.to_f > Verdicts::Limits::ERROR_LIMIT_PCT
        Figure.new(rps: over ? 0.0 : m.good_rps, p99_ms: m.summary&.p99_us&.then { |us| us / 1000.0 }, pss_kb: m.probes&.pss_peak_kb).freeze
      end

      # The confirmation's rounds as their speed readings and round records
      # tell them (not other rounds run the same way: Scaling's have a variant of their own).
      def self.rounds(results)
        ours = ->(r) { r.is_a?(Hash) && r["round"] && [nil, "confirmation"].include?(r["variant"]) }
        readings = Array(results["machine_speed"]).select(&ours)
        recorded = Array(results["confirmation_rounds"]).select(&ours).to_h { |r| [r["round"], r] }
        (readings.map { |r| r["round"] } + recorded.keys).uniq.sort.map do |n|
          mine = readings.select { |r| r["round"] == n }
          RoundRecord.new(number: n, order: recorded.dig(n, "order") || mine.map { |r| r["config"] },
            speeds: mine.to_h { |r| [r["config"], [r["cpu_ms"], r["memory_ms"]]] }, seconds: recorded.dig(n, "seconds"),
            design: recorded.dig(n, "design")).freeze
        end
      end

      # tune.json written whole (a new file renamed over the old one).
      def self.write(dir, document)
        path = File.join(dir, TuneAnswer::FILE)
        File.write("#{path}.tmp", JSON.pretty_generate(document))
        File.rename("#{path}.tmp", path)
        path
      end

      # tune.json again, with the resumed answer in place and the resume said;
      # the earlier answer's scaling (its rounds on every core) stays when the
      # answer is the same config.
      def self.resumed(document, answer:, rounds:, seconds:)
        done = Array(document["resumed"]) + [{"at" => Time.now.utc.iso8601, "rounds" => rounds, "seconds" => seconds.round}]
        before = document["answer"] || {}
        same = before.values_at("server", "settings") == answer.values_at("server", "settings")
        answer = answer.merge("scaling" => before["scaling"]).compact if same && before["scaling"] && !answer["scaling"]
        document.merge("answer" => answer, "resumed" => done)
      end
    end
  end
end
