# frozen_string_literal: true

require "zlib"
require_relative "../core"

module Arena
  module Traffic
    # A log file's lines with their numbers, gunzipped when the file starts
    # with gzip's magic bytes (logrotate's .gz, whatever its name).
    class LogSource
      GZIP_MAGIC = "\x1f\x8b".b

      def initialize(path)
        raise UsageError, "traffic import: no such log file: #{path}" unless File.file?(path)
        raise UsageError, "traffic import: cannot read #{path}" unless File.readable?(path)
        @path = path
      end

      def gzip? = File.binread(@path, 2) == GZIP_MAGIC

      # Yields (line, number) with the line's end removed; invalid bytes are
      # replaced, so a stray byte spoils one line, never the read.
      def each_line
        return enum_for(:each_line) unless block_given?
        open_io do |io|
          number = 0
          io.each_line do |line|
            number += 1
            line = line.force_encoding(Encoding::UTF_8)
            line = line.scrub("?") unless line.valid_encoding?
            yield line.chomp, number
          end
        end
      rescue Zlib::Error => e
        raise UsageError, "traffic import: #{@path}: damaged gzip data (#{e.message})"
      end

      def first_lines(count) = each_line.lazy.map { |line, _| line }.reject { |l| l.strip.empty? }.first(count)

      private

      def open_io(&block)
        return Zlib::GzipReader.open(@path, &block) if gzip?
        File.open(@path, "rb", &block)
      end
    end
  end
end
