# frozen_string_literal: true

require_relative "../core"
require_relative "../load"
require_relative "../load/settings"
require_relative "../plan/envelope"
require_relative "../scenarios/base"
require_relative "server_list"

module Arena
  module Planner
    class ConfigFile
      # The keys arena.yml may hold and how each becomes a Planner::Builder option.
      # Load settings are not listed here: `load:` takes every row of the one
      # declared table (Load::TABLE: load/settings.rb's rows and the scenarios'
      # own), cast by the row itself.
      class Schema
        TOP = {
          "app" => "a config.ru or the app's directory (default: the app in this directory, else the built-in app)",
          "servers" => "servers with their settings: a list of NAME or NAME: {SETTING: VALUE}",
          "workloads" => "built-in workload names, or paths PATH[=STATUS[:BODY]]",
          "requests" => "a requests file: named requests and weighted mixes",
          "scenarios" => "steady, rate, breakpoint, ...",
          "load" => "load settings (connections, duration, ...)",
          "rounds" => "rounds: every config x workload x scenario once per round (default 6)",
          "repeat" => "the same as rounds (its old name)",
          "bind" => "tcp or unix",
          "front" => "nginx",
          "port" => "TCP port for the server",
          "ready_timeout" => "seconds a server may take to answer",
          "headers" => "sent with every request: NAME: VALUE",
          "env" => "the servers' environment: KEY: VALUE",
          "memory_budget_mb" => "arena tune: the most PSS (MiB) a config may use",
          "envelope" => "every server's CPU quota and memory limit: {cpus: 1, memory: 512MiB} or \"cpus=1,memory=512MiB\"",
          "only_app_bundle" => "true: only the servers in the app's own bundle (no overlay bundle)",
          "out" => "results directory"
        }.freeze
        HEADER_NAME = /\A[!#$%&'*+.^_`|~0-9A-Za-z-]+\z/
        ENV_NAME = /\A[A-Za-z_][A-Za-z0-9_]*\z/

        def initialize(file)
          @file = file
        end

        def options(data)
          data.each_with_object({}) do |(key, value), options|
            @file.invalid!([key], "unknown key (known: #{TOP.keys.join(", ")})") unless TOP.key?(key)
            @file.invalid!([key], "has no value") if value.nil?
            options.merge!(send(:"read_#{key}", value))
          end
        end

        private

        def read_app(value)
          path = @file.relative(string(["app"], value))
          @file.invalid!(["app"], "no such file or directory: #{value}") unless File.exist?(path)
          {app: path}
        end

        # `- puma`, `- puma: {threads: 4}` or `- "puma:threads=4"`, each checked
        # by the adapter now, so a bad setting points at its line.
        def read_servers(value)
          specs = list(["servers"], value).each_with_index.map do |item, i|
            spec = server_spec(["servers", i], item)
            begin
              Planner::ServerList.parse([spec], machine: @file.machine)
            rescue UsageError => e
              @file.invalid!(["servers", i], e.message)
            end
            spec
          end
          {servers: specs}
        end

        def server_spec(at, item)
          return item if item.is_a?(String) && !item.strip.empty?
          unless item.is_a?(Hash) && item.size == 1 && item.keys.first.is_a?(String)
            @file.invalid!(at, "a server is NAME or NAME: {SETTING: VALUE}")
          end
          name, settings = item.first
          settings ||= {}
          @file.invalid!(at, "#{name}'s settings must be a mapping SETTING: VALUE") unless settings.is_a?(Hash)
          pairs = settings.map do |k, v|
            @file.invalid!(at + [name, k], "must be a plain value") if v.is_a?(Hash) || v.is_a?(Array) || v.nil?
            "#{k}=#{v}"
          end
          pairs.empty? ? name : "#{name}:#{pairs.join(",")}"
        end

        def read_workloads(value)
          {workloads: list(["workloads"], value).each_with_index.map { |item, i| string(["workloads", i], item) }}
        end

        def read_requests(value)
          path = @file.relative(string(["requests"], value))
          @file.invalid!(["requests"], "no such file: #{value}") unless File.file?(path)
          {requests_file: path}
        end

        def read_scenarios(value)
          names = list(["scenarios"], value).each_with_index.map do |item, i|
            name = string(["scenarios", i], item)
            begin
              Scenarios.fetch(name)
            rescue UsageError => e
              @file.invalid!(["scenarios", i], e.message)
            end
            name
          end
          {scenarios: names}
        end

        def read_load(value)
          @file.invalid!(["load"], "must be a mapping of load settings") unless value.is_a?(Hash)
          value.to_h do |key, v|
            setting = Load.setting(key.to_s.to_sym)
            @file.invalid!(["load", key], "unknown load setting (known: #{Load::TABLE.map(&:name).join(", ")})") unless setting
            @file.invalid!(["load", key], "has no value") if v.nil?
            # YAML 1.1 reads a bare on/off as true/false.
            v = {true => "on", false => "off"}.fetch(v, v) if setting.type.is_a?(Array)
            begin
              [setting.name, setting.cast(v.is_a?(Array) ? v : v.to_s)]
            rescue UsageError => e
              @file.invalid!(["load", key], e.message.delete_prefix("#{setting.switch} "))
            end
          end
        end

        def read_repeat(value) = {rounds: whole(["repeat"], value, 1..1000)}

        def read_rounds(value) = {rounds: whole(["rounds"], value, 1..1000)}

        def read_port(value) = {port: whole(["port"], value, 1..65_535)}

        def read_bind(value) = {bind: one_of(["bind"], value, %w[tcp unix])}

        def read_front(value) = {front: one_of(["front"], value, %w[nginx])}

        def read_ready_timeout(value) = {ready_timeout: number(["ready_timeout"], value, 0.1..3600)}

        def read_memory_budget_mb(value) = {memory_budget_mb: number(["memory_budget_mb"], value, 1..10_000_000)}

        # `envelope: {cpus: 1, memory: 512MiB}` or `envelope: "cpus=1,memory=512MiB"`.
        def read_envelope(value)
          text = value.is_a?(Hash) ? value.map { |k, v| "#{k}=#{v}" }.join(",") : string(["envelope"], value)
          {envelope: Plan::Envelope.parse(text)}
        rescue UsageError => e
          @file.invalid!(["envelope"], e.message)
        end

        def read_only_app_bundle(value)
          @file.invalid!(["only_app_bundle"], "must be true or false") unless [true, false].include?(value)
          {only_app_bundle: value}
        end

        def read_out(value) = {out: @file.relative(string(["out"], value))}

        # A mapping NAME: VALUE, or a list of "NAME: VALUE" strings as --header takes them.
        def read_headers(value)
          pairs = if value.is_a?(Array)
            value.each_with_index.map do |item, i|
              name, v = string(["headers", i], item).split(":", 2)
              @file.invalid!(["headers", i], "a header is written \"Name: value\"") if v.nil?
              [name.strip, v.strip, ["headers", i]]
            end
          elsif value.is_a?(Hash)
            value.map { |name, v| [name.to_s, scalar(["headers", name], v), ["headers", name]] }
          else
            @file.invalid!(["headers"], "must be a mapping Name: value")
          end
          headers = pairs.to_h do |name, v, at|
            @file.invalid!(at, "#{name.inspect} is not a header name") unless HEADER_NAME.match?(name)
            @file.invalid!(at, "a header value cannot hold a line break") if /[\r\n]/.match?(v)
            [name, v]
          end
          {headers: headers}
        end

        def read_env(value)
          @file.invalid!(["env"], "must be a mapping KEY: VALUE") unless value.is_a?(Hash)
          {env: value.to_h do |key, v|
            @file.invalid!(["env", key], "#{key.inspect} is not an environment variable name") unless ENV_NAME.match?(key.to_s)
            [key.to_s, scalar(["env", key], v)]
          end}
        end

        def list(at, value)
          value = [value] if value.is_a?(String)
          @file.invalid!(at, "must be a list") unless value.is_a?(Array)
          @file.invalid!(at, "is an empty list") if value.empty?
          value
        end

        def string(at, value)
          @file.invalid!(at, "must be text, not #{kind(value)}") unless value.is_a?(String) && !value.strip.empty?
          value
        end

        def scalar(at, value)
          @file.invalid!(at, "must be a plain value, not #{kind(value)}") unless [String, Integer, Float, TrueClass, FalseClass].any? { |c| value.is_a?(c) }
          value.to_s
        end

        def whole(at, value, range)
          @file.invalid!(at, "must be a whole number") unless value.is_a?(Integer)
          @file.invalid!(at, "must be between #{range.begin} and #{range.end}") unless range.cover?(value)
          value
        end

        def number(at, value, range)
          @file.invalid!(at, "must be a number") unless value.is_a?(Numeric)
          @file.invalid!(at, "must be between #{range.begin} and #{range.end}") unless range.cover?(value)
          value.to_f
        end

        def one_of(at, value, words)
          @file.invalid!(at, "must be one of #{words.join(", ")}") unless words.include?(value)
          value
        end

        def kind(value)
          case value
          when Hash then "a mapping"
          when Array then "a list"
          when nil then "empty"
          else "#{value.inspect} (#{value.class.name.downcase})"
          end
        end
      end
    end
  end
end
