# The JSON files embedded in the programs (cmake/embed_presets.cmake), listed once for core and
# for the fuzz project. Set MIRROR_RESOURCES to the resources/ folder before including this.
# The built-in presets (the --model-file format plus training settings), in display order.
set(MIRROR_PRESET_FILES
  ${MIRROR_RESOURCES}/presets/seed-reuters.json
  ${MIRROR_RESOURCES}/presets/seed-reuters-as-published.json
  ${MIRROR_RESOURCES}/presets/reuters-mlp.json
  ${MIRROR_RESOURCES}/presets/fashion-cnn.json
  ${MIRROR_RESOURCES}/presets/spirals-mlp.json)
# The built-in lessons (Help → Lessons…, mirrortrain lesson), in display order.
set(MIRROR_LESSON_FILES
  ${MIRROR_RESOURCES}/lessons/why-not-2x.json
  ${MIRROR_RESOURCES}/lessons/global-batch.json
  ${MIRROR_RESOURCES}/lessons/tutorials-bug.json
  ${MIRROR_RESOURCES}/lessons/broken-sync.json
  ${MIRROR_RESOURCES}/lessons/network-decides.json)

# Adds the commands that write OUTPUT_DIR/embedded_presets.cpp and embedded_lessons.cpp.
function(mirror_embed_resources output_dir)
  add_custom_command(
    OUTPUT ${output_dir}/embedded_presets.cpp
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output_dir}/embedded_presets.cpp
            "-DPRESETS=${MIRROR_PRESET_FILES}" -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_presets.cmake
    DEPENDS ${MIRROR_PRESET_FILES} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_presets.cmake
    COMMENT "Embedding the presets of resources/presets/"
    VERBATIM)
  add_custom_command(
    OUTPUT ${output_dir}/embedded_lessons.cpp
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output_dir}/embedded_lessons.cpp
            "-DPRESETS=${MIRROR_LESSON_FILES}" -DFUNCTION=embedded_lesson_files
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_presets.cmake
    DEPENDS ${MIRROR_LESSON_FILES} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_presets.cmake
    COMMENT "Embedding the lessons of resources/lessons/"
    VERBATIM)
endfunction()
