# frozen_string_literal: true

require_relative "../../support/format"
require_relative "../../support/short"
require_relative "../timeline_side"

module Arena
  module Report
    module Sides
      # What the report says and draws of a restart: its failed requests, longest
      # wait and dip, on a timeline.
      class Restart < TimelineSide
        side_of "restart"

        def finding(m)
          x = m.extra
          return "#{m.server} #{m.workload} restart: unsupported (#{x["unsupported"]})" if m.summary?
          "#{m.server} #{m.workload} restart #{m.variant}: #{x["failed_requests"]} failed requests, " \
            "longest #{Support::Format.duration_us(x["longest_us"])}, dip #{x["dip_pct"]}%#{", NOT serving after" unless x["serving_after"]}"
        end

        # "restart phased  0 failed, longest 526 ms, dip 100%";
        # "restart  unsupported: no zero-downtime restart Arena can trigger".
        def brief(m)
          x = m.extra
          s = Support::Short
          return ["restart", "unsupported: #{x["unsupported"].to_s.sub(/\A#{Regexp.escape(m.server.to_s.split(":").first)} has /, "")}"] if m.summary?
          ["restart #{m.variant}", "#{s.rate(x["failed_requests"])} failed, longest #{s.duration_us(x["longest_us"])}, " \
            "dip #{s.pct(x["dip_pct"])}#{", NOT serving after" unless x["serving_after"]}"]
        end

        def event_label(m) = "#{m.variant} restart"
      end
    end
  end
end
