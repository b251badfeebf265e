# frozen_string_literal: true

require "yaml"
require_relative "../core"
require_relative "../support/plain_yaml"
require_relative "plan"
require_relative "workloads"

module Arena
  class Plan
    # A requests file (--requests FILE, YAML) describes an app's traffic once:
    # named requests, and weighted mixes of them. Each request and each mix is
    # a workload; a mix runs as one, through the engine's mix file.
    #
    #   requests:
    #     item:   {path: /items/7, expect_body: '"id":7'}
    #     create: {method: POST, path: /items, headers: {Content-Type: application/json},
    #              body: '{"name":"x"}', expect_status: 201}
    #     show:   {path: /items/7, paths: [/items/7, /items/12, /items/7, /items/90]}
    #   mixes:
    #     production: {item: 9, create: 1, show: 5}
    #   workloads: [production]        # what runs when --workload names none
    #
    # The engine sends one set of headers and one body for a whole mix, so the
    # members of a mix must agree on both (a GET's lack of body aside).
    #
    # paths: (optional) real paths of one request's template, as `arena traffic
    # import` samples them from a log: in a mix, the request's weight is shared
    # equally between them (a path listed twice gets twice the share), so a
    # cache sees the log's spread of records rather than one hot path. path:
    # stays the one a pre-flight check and a lone run send.
    class RequestsFile
      METHODS = %w[GET HEAD POST PUT PATCH DELETE OPTIONS].freeze
      REQUEST_KEYS = %w[method path paths headers body body_file expect_status expect_body].freeze
      MAX_PATHS = 1000

      def self.load(path)
        raise UsageError, "--requests #{path}: no such file" unless File.file?(path)
        data = Support::PlainYaml.load(File.read(path), shown: "--requests #{path}")
        new(data, path: path)
      end

      attr_reader :requests, :mixes

      def initialize(data, path:)
        @path = path
        fail!("must be a mapping with requests: (and mixes:, workloads:)") unless data.is_a?(Hash)
        unknown = data.keys - %w[requests mixes workloads]
        fail!("unknown key #{unknown.first.inspect} (known: requests, mixes, workloads)") unless unknown.empty?
        fail!("requests: must name at least one request") unless data["requests"].is_a?(Hash) && !data["requests"].empty?
        @requests = data["requests"].to_h { |name, spec| [name.to_s, request(name.to_s, spec)] }
        @mixes = (data["mixes"] || {}).then { |m| m.is_a?(Hash) ? m : fail!("mixes: must be a mapping") }
          .to_h { |name, spec| [name.to_s, mix(name.to_s, spec)] }
        clash = @mixes.keys & @requests.keys
        fail!("#{clash.first.inspect} names both a request and a mix") unless clash.empty?
        @default = Array(data["workloads"]).map(&:to_s)
      end

      # The workloads to run: the names given (a request, a mix, or a plain
      # PATH[=STATUS[:BODY]]), else the file's `workloads:`, else its mixes,
      # else every request.
      def workloads(names = nil)
        names = @default if names.nil? || names.empty?
        return (@mixes.empty? ? @requests.values : @mixes.values) if names.empty?
        names.map do |name|
          @requests[name] || @mixes[name] || (name.start_with?("/") ? Plan::Workloads.custom(name) : fail!("no request or mix named #{name.inspect} (known: #{(@requests.keys + @mixes.keys).join(", ")})"))
        end
      end

      private

      def request(name, spec)
        at = "requests.#{name}"
        spec = {"path" => spec} if spec.is_a?(String)
        fail!("#{at}: must be a mapping with path:") unless spec.is_a?(Hash)
        unknown = spec.keys - REQUEST_KEYS
        fail!("#{at}: unknown key #{unknown.first.inspect} (known: #{REQUEST_KEYS.join(", ")})") unless unknown.empty?
        path = spec["path"].to_s
        fail!("#{at}.path: must start with / and have no spaces or control characters") unless path.start_with?("/") && !path.match?(/[\s\x00-\x1f\x7f]/)
        method = (spec["method"] || "GET").to_s.upcase
        fail!("#{at}.method: must be one of #{METHODS.join(", ")}") unless METHODS.include?(method)
        fail!("#{at}.expect_body: quote it (YAML reads #{spec["expect_body"]} as true or false)") if [true, false].include?(spec["expect_body"])
        status = spec.fetch("expect_status", 200)
        fail!("#{at}.expect_status: must be a status code such as 200") unless status.is_a?(Integer) && status.between?(100, 599)
        Plan::Workload.new(name: name, path: path, method: method, body: body(at, spec), content_type: nil,
          expect_status: status, expect_body: spec["expect_body"]&.to_s, headers: headers(at, spec["headers"]),
          samples: samples(at, spec["paths"])).freeze
      end

      def samples(at, value)
        return nil if value.nil?
        fail!("#{at}.paths: must be a list of 1 to #{MAX_PATHS} paths") unless value.is_a?(Array) && value.size.between?(1, MAX_PATHS)
        value.map(&:to_s).each do |p|
          fail!("#{at}.paths: #{p.inspect} must start with / and have no spaces") unless p.start_with?("/") && !p.match?(/\s/)
        end.freeze
      end

      def body(at, spec)
        fail!("#{at}: body and body_file exclude each other") if spec.key?("body") && spec.key?("body_file")
        return spec["body"].to_s if spec.key?("body")
        return nil unless spec["body_file"]
        file = File.expand_path(spec["body_file"].to_s, File.dirname(@path))
        fail!("#{at}.body_file: no such file: #{spec["body_file"]}") unless File.file?(file)
        File.binread(file)
      end

      def headers(at, value)
        return {}.freeze if value.nil?
        fail!("#{at}.headers: must be a mapping Name: value") unless value.is_a?(Hash)
        value.to_h do |k, v|
          fail!("#{at}.headers: #{k.inspect} is not a header name") unless k.to_s.match?(/\A[!#$%&'*+.^_`|~0-9A-Za-z-]+\z/)
          fail!("#{at}.headers.#{k}: a value is one line") if v.to_s.match?(/[\r\n]/)
          [k.to_s, v.to_s]
        end.freeze
      end

      def mix(name, spec)
        at = "mixes.#{name}"
        fail!("#{at}: must be a mapping request: weight") unless spec.is_a?(Hash) && !spec.empty?
        members = spec.map do |request, weight|
          wl = @requests[request.to_s] || fail!("#{at}: no request named #{request.to_s.inspect}")
          fail!("#{at}.#{request}: the weight must be a whole number from 1") unless weight.is_a?(Integer) && weight.positive?
          fail!("#{at}.#{request}: expect_body cannot start or end with spaces in a mix") if wl.expect_body&.then { |b| b != b.strip }
          [weight, wl]
        end
        agree(at, members)
        first = members.first.last
        Plan::Workload.new(name: name, path: first.path, method: first.method, body: members.map(&:last).filter_map(&:body).first,
          content_type: nil, expect_status: nil, expect_body: nil, headers: first.headers, mix: members.freeze).freeze
      end

      def agree(at, members)
        requests = members.map(&:last)
        if requests.map(&:headers).uniq.size > 1
          fail!("#{at}: its requests send different headers; the engine sends one set for a whole mix")
        end
        if requests.filter_map(&:body).uniq.size > 1
          fail!("#{at}: its requests send different bodies; the engine sends one body for a whole mix")
        end
      end

      def fail!(why) = raise(UsageError, "--requests #{@path}: #{why}")
    end
  end
end
