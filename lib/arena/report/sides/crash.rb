# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../../verdicts/event_analysis"
require_relative "../timeline_side"

module Arena
  module Report
    module Sides
      # What the report says and draws of a killed worker: its outcome, errors
      # and recovery, on a timeline.
      class Crash < TimelineSide
        side_of "crash"

        def finding(m)
          return nil if m.summary?
          x = m.extra
          recovery = Verdicts::EventAnalysis.words(x)
          "#{m.server} #{m.workload} crash: worker #{x["victim"]} killed at #{x["event_at_s"]}s, #{x["outcome"]}, " \
            "#{x["errors_after_event"]} errors, #{recovery}, longest #{Support::Format.duration_us(x["longest_us"])}"
        end

        # "worker replaced, 0 errors, no lasting effect, longest 64.5 ms" (the
        # kill's moment and the worker's pid are report.md's)
        def brief(m)
          return nil if m.summary?
          x = m.extra
          s = Support::Short
          ["crash", "worker #{x["outcome"]}, #{s.rate(x["errors_after_event"])} errors, " \
            "#{recovery(x)}, longest #{s.duration_us(x["longest_us"])}"]
        end

        # "no lasting effect", "recovered in 0.55 s", "not recovered".
        def recovery(x)
          word = x["verdict"] || (x["recovered"] ? "recovered" : "not recovered")
          return word unless word == "recovered"
          seconds = x["verdict_reason"].to_s[/in ([\d.]+) ?s\z/, 1] || x["recovery_s"]
          seconds ? "recovered in #{Support::Short.sig(seconds.to_f)} s" : word
        end

        def event_label(_m) = "worker killed"
      end
    end
  end
end
