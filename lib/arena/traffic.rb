# frozen_string_literal: true

# Production traffic into a requests file: a log's source and format, its
# entries, their templates and census, and the file written. Loaded by
# `arena traffic` alone.
require_relative "traffic/census"
require_relative "traffic/entry"
require_relative "traffic/formats"
require_relative "traffic/import"
require_relative "traffic/log_source"
require_relative "traffic/requests_writer"
require_relative "traffic/template"
