# frozen_string_literal: true

require_relative "../core"
require_relative "../plan/envelope"
require_relative "../plan/runtime"
require_relative "../servers/base"

module Arena
  module Planner
    # The server configs a list of specs names (--servers, arena.yml's servers:,
    # a preset's), each an adapter made with its settings, runtime and envelope.
    module ServerList
      module_function

      # "puma:workers=2,threads=5 unicorn:workers=3" (spaces or separate flags);
      # a "+yjit+malloc=jemalloc" tail is that config's runtime (lib/arena/plan/runtime.rb),
      # an "@cpus=1,memory=512MiB" tail its envelope (lib/arena/plan/envelope.rb).
      def parse(items, machine:)
        items.flat_map { |item| item.split(/\s+/) }.reject(&:empty?).map do |spec|
          spec, envelope = spec.split("@", 2)
          spec, *runtime = spec.split("+")
          name, settings = spec.split(":", 2)
          pairs = settings.to_s.split(",").to_h do |pair|
            key, value = pair.split("=", 2)
            raise UsageError, "#{spec}: settings are NAME=VALUE pairs separated by commas" if value.nil? || key.empty?
            [key, value]
          end
          Servers.fetch(name).new(settings: pairs, machine: machine, runtime: Plan::Runtime.parse(runtime), envelope: Plan::Envelope.parse(envelope))
        end
      end
    end
  end
end
