# frozen_string_literal: true

require_relative "svg"

module Arena
  module Report
    # One colour per server config, the same on every chart of a page, and
    # the same server the same colour from one report to the next: a known
    # server's first config takes the colour of its place among the
    # registered servers (puma is always the same); a second config of the
    # same server, and a name Arena does not know, take the next colour no
    # one on the page holds. Only a page of more configs than colours
    # (Svg::PALETTE) repeats one.
    class Colors
      def initialize(labels, names: Servers.registry.keys.sort)
        @index = {}
        taken = []
        labels = labels.uniq
        labels.each do |label|
          own = names.index(label.to_s[/\A[^:+@]+/])
          next if own.nil? || own >= Svg::PALETTE.size || taken.include?(own)
          @index[label] = own
          taken << own
        end
        labels.each do |label|
          next if @index.key?(label)
          free = (0...Svg::PALETTE.size).find { |i| !taken.include?(i) } || taken.size % Svg::PALETTE.size
          @index[label] = free
          taken << free
        end
      end

      # A label the page did not list (a scenario's own server) still gets a
      # colour: the next free one, kept for it.
      def call(label)
        @index[label] ||= (0...Svg::PALETTE.size).find { |i| !@index.value?(i) } || @index.size % Svg::PALETTE.size
        Svg::PALETTE[@index[label]]
      end
    end
  end
end
